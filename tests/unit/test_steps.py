"""The notebooks' steps: helpers towards an exercise, each with its public check, never graded.

A ```step block becomes the reference's helper as an exercise cell and a locked check cell; every step of the parts
has public cases and a hint; the reference's steps pass their checks, a wrong step is told so with its hint, an
unwritten one is "not written yet". (A graded class that calls the student's own steps is graded on them fairly:
tests/system/test_steps.py.)
"""

import json
import math

import pytest
import torch
from torch.nn import functional as F

from autograder.course import notebooks, public
from autograder.course.progress import _through
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.judge.hints import STEPS as STEP_HINTS


def parts_steps():
    return [
        cell.args[0]
        for part in notebooks.parts()
        for cell in notebooks.parse(part.read_text(), part.name)
        if cell.kind == "step"
    ]


# engine/authoring imports Hugging Face: imported in the tests that need it, collecting the tests does not wait for it.


@pytest.fixture(scope="module")
def reference():
    from autograder.engine.authoring import case_files

    return case_files.reference_steps()


def test_a_step_block_becomes_the_helpers_exercise_cell_and_a_locked_check(tmp_path):
    part = tmp_path / "99_part.md"
    part.write_text(
        "# A part\n\n```setup\n```\n\n```step attention_scores\n```\n\n```exercise scaled_dot_product_attention\n```\n\n"
        "```graded attention\ncheck_attention(scaled_dot_product_attention)\n```\n"
    )
    cells = notebooks.source_notebook(part)["cells"]
    (index,) = [i for i, c in enumerate(cells) if c["source"].startswith("def attention_scores(")]
    exercise, check = cells[index], cells[index + 1]
    assert exercise["metadata"]["nbgrader"]["solution"] and "### BEGIN SOLUTION" in exercise["source"]
    assert "def scaled_dot_product_attention" not in exercise["source"]
    assert check["source"].endswith("check_step('attention_scores', attention_scores)")
    meta = check["metadata"]
    assert meta["nbgrader"]["locked"] and not meta["nbgrader"]["grade"] and loader.DEMO_TAG in meta["tags"]
    # Grading reads the helper with the notebook's code, and never runs the check.
    units = loader.load_files("sub", [("99_part.ipynb", json.dumps(notebooks.source_notebook(part)))]).units
    assert any("def attention_scores(" in u.code for u in units)
    assert not any("check_step" in u.code for u in units)


@pytest.mark.parametrize(
    "block, problem",
    [
        ("```step scaled_dot_product_attention\n```\n", "is a SPEC name"),
        ("```step no_such_helper\n```\n", "no file in solutions/ defines the step no_such_helper"),
        ("```step attention_scores masked_scores\n```\n", "takes one helper's name"),
        ("```step attention_scores\ncheck_step(attention_scores)\n```\n", "an empty block"),
    ],
)
def test_malformed_step_blocks_are_refused(tmp_path, block, problem):
    part = tmp_path / "99_part.md"
    part.write_text(block)
    with pytest.raises(KitFault, match=problem):
        notebooks.source_notebook(part)


def test_every_step_of_the_parts_has_its_cases_and_hint_and_each_is_asked_once():
    from autograder.engine.authoring.cases import steps

    asked = parts_steps()
    cased = {case.target for case in public.PUBLIC.cases("steps")}
    assert sorted(asked) == sorted(set(asked)), "a step is asked twice"
    assert set(asked) == set(steps.STEPS) == cased == set(STEP_HINTS) == set(WRONG)
    for step, component in steps.STEPS.items():
        assert notebooks.step_reference(step).stem == component


def test_the_reference_steps_pass_their_checks(reference, capsys):
    for name, function in reference.items():
        assert public.check_step(name, function) is None  # no Out[] under the check cell
        cases = len([c for c in public.PUBLIC.cases("steps") if c.target == name])
        assert capsys.readouterr().out.endswith(f"{name}: all {cases} public checks passed\n")


def _sdpa(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = scores.softmax(-1)
    return weights @ value, weights


# A plausible wrong version of each step, as students write them.
WRONG = {
    "attention_scores": lambda query, key: query @ key.transpose(-2, -1) / query.size(-1),
    "masked_scores": lambda scores, mask=None: scores if mask is None else scores.masked_fill(~mask, 0.0),
    "attention_weights": lambda scores: scores.softmax(dim=-2),
    "split_heads": lambda x, num_heads: x.view(x.size(0), num_heads, x.size(1), -1),
    "attend": lambda q, k, v, mask=None, dropout=None: _sdpa(q, k, v),  # the mask not passed on
    "merge_heads": lambda x: x.reshape(x.size(0), x.size(2), -1),
    "mean_and_variance": lambda x: (x.mean(-1, keepdim=True), x.var(-1, keepdim=True)),
    "normalise": lambda x, mean, variance, eps: (x - mean) / (variance.sqrt() + eps),
    "scale_and_shift": lambda normalised, weight, bias: normalised * weight,
    "gelu": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    "sinusoid_angles": lambda max_len, d_model: (
        torch.arange(max_len)[:, None] / 10000 ** (torch.arange((d_model + 1) // 2) / d_model)  # i for 2i
    ),
    "interleave_sin_cos": lambda angles, d_model: torch.cat([angles.sin(), angles.cos()], -1)[:, :d_model],
    "embedding_sum": lambda input_ids, tokens, positions, types, token_type_ids=None: (
        tokens[input_ids] + positions[1 : input_ids.size(1) + 1]
    ),
    "add_and_norm": lambda x, sublayer_output, weight, bias, eps: x + _norm(sublayer_output, weight, bias, eps),
    "self_attention_block": lambda x, mask, weight, bias, eps: _norm(x + _sdpa(x, x, x)[0], weight, bias, eps),
    "encoder_mask": lambda attention_mask: (attention_mask == 0)[:, None, None, :],  # True at padding
    "pool": lambda hidden_states, weight, bias: torch.tanh(F.linear(hidden_states.mean(1), weight, bias)),
    "self_attention_mask": lambda length, attention_mask=None: (
        torch.ones(length, length, dtype=torch.bool).tril()
        | (attention_mask is not None and attention_mask.bool()[:, None, None, :])
    ),
    "masked_self_attention_block": lambda x, self_mask, weight, bias, eps: _norm(
        _sdpa(x, x, x, self_mask)[0], weight, bias, eps
    ),  # no residual
    "cross_attention_block": lambda x, memory, cross_mask, weight, bias, eps: _norm(
        x + _sdpa(x, x, x)[0], weight, bias, eps
    ),  # keys and values from the target itself
    "next_tokens": lambda logits: logits[:, 0].argmax(dim=-1),  # the first position's
    "finish_rows": lambda next_token, finished, eos_token_id, pad_token_id: _finished_first(
        next_token, finished | (next_token == eos_token_id), pad_token_id
    ),
    "decode_step": lambda tokens, logits, finished, eos_token_id, pad_token_id: (  # finished rows not padded
        torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1),
        finished | (logits[:, -1].argmax(-1) == eos_token_id),
    ),
}


def _norm(x, weight, bias, eps):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def _finished_first(next_token, finished, pad_token_id):
    """finish_rows with the rows finished after the step padded: a row's own EOS becomes PAD."""
    return next_token.masked_fill(finished, pad_token_id), finished


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_step_is_told_so_with_its_hint(name):
    with pytest.raises(public.Failed) as failure:
        public.check_step(name, WRONG[name], quiet=True)
    assert failure.value.passed < failure.value.total
    assert f"Hint: {STEP_HINTS[name]}" in str(failure.value)


def test_an_unwritten_step_is_not_started_and_an_unknown_one_is_named():
    def attention_scores(query, key):
        raise NotImplementedError

    with pytest.raises(public.NotStarted, match="attention_scores is not written yet"):
        public.check_step("attention_scores", attention_scores, quiet=True)
    with pytest.raises(KitFault, match="not_a_step is not one of the course's steps"):
        public.check_step("not_a_step", attention_scores)


def test_the_worked_examples_numbers_in_the_prose_are_what_torch_computes():
    """The numbers the parts work out by hand before their exercises, computed."""
    from autograder.engine.authoring import case_files

    prose = {part.stem[:2]: " ".join(part.read_text().split()) for part in notebooks.parts()}
    scores = torch.tensor([4.0, 0.0, 2.0], dtype=torch.float64) / math.sqrt(4)
    weights = scores.softmax(-1)
    output = weights @ torch.tensor([[1.0, 0.0], [0.0, 1.0], [10.0, 10.0]], dtype=torch.float64)
    kept = scores[:2].softmax(-1)
    assert f"{scores.exp().sum():.3f} = {weights[0]:.3f}" in prose["01"]
    assert f"| {weights[1]:.3f} |" in prose["01"] and f"| {weights[2]:.3f} |" in prose["01"]
    assert f"= ({output[0]:.2f}, {output[1]:.2f})" in prose["01"]
    assert f"= {kept[0]:.3f} and 1 / {scores[:2].exp().sum():.3f} = {kept[1]:.3f}" in prose["01"]

    x = torch.tensor([1.0, 2.0, 3.0, 6.0], dtype=torch.float64)
    normalised = (x - x.mean()) / x.var(unbiased=False).sqrt()
    final = torch.tensor([1.0, 1.0, 2.0, 2.0]) * normalised + torch.tensor([0.0, 0.0, 0.0, 1.0])
    assert f"σ² = 14 / 4 = {x.var(unbiased=False):.1f}" in prose["03"] and f"14 / 3 = {x.var():.2f}" in prose["03"]
    assert "(" + ", ".join(f"{v:.3f}".replace("0.000", "0") for v in normalised) + ")" in prose["03"]
    assert "(" + ", ".join(f"{v:.3f}".replace("0.000", "0") for v in final) + ")" in prose["03"]
    gelu = torch.nn.functional.gelu(torch.tensor([1.0, -1.0, 2.0], dtype=torch.float64))
    assert f"GELU(1) = {gelu[0]:.4f} and GELU(-1) = -1 · (1 - {gelu[0]:.4f}) = {gelu[1]:.4f}" in prose["03"]
    assert f"GELU(2) = {gelu[2]:.4f}" in prose["03"]

    row = case_files.reference()["sinusoidal_positional_encoding"](2, 4)[1].tolist()
    assert f"({row[0]:.4f}, {row[1]:.4f}, {row[2]:.4f}, {row[3]:.5f})" in prose["04"]


def test_a_part_that_fails_through_an_earlier_one_is_told_so_through_its_steps():
    """The progress report names the earlier part a component runs, also when only a step of its own calls it."""
    namespace = {}
    exec(
        "def scaled_dot_product_attention(q, k, v, mask=None):\n    raise NotImplementedError\n\n"
        "def attend(q, k, v, mask=None, dropout=None):\n    return scaled_dot_product_attention(q, k, v, mask)\n\n"
        "class MultiHeadAttention:\n    def forward(self, x):\n        return attend(x, x, x)\n",
        namespace,
    )
    component = spec.BY_ID["multihead"]
    said = _through(component, {"MultiHeadAttention": namespace["MultiHeadAttention"]}, passing=set())
    assert "it runs your attention, which does not pass its own checks yet" in said
    assert _through(component, {"MultiHeadAttention": namespace["MultiHeadAttention"]}, {"attention"}) == ""
