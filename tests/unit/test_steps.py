"""The notebooks' steps: helpers towards an exercise, each with its public check, never graded.

A ```steps block becomes the component's steps, as engine/authoring/steps/ declares them: each numbered with its title,
the reference's helper as an exercise cell and a locked check cell; every step is asked once and has public cases
and a hint; the reference's steps pass their checks, each step's wrong version is told so with its hint, an
unwritten one is "not written yet". (A graded class that calls the student's own steps is graded on them fairly:
tests/system/test_steps.py.)
"""

import json
import math
import re

import pytest
import torch

from autograder.course import notebooks, public
from autograder.course.progress import _through
from autograder.engine.authoring import case_files, steps
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.judge import hints


def parts_steps():
    return [
        step.name
        for part in notebooks.parts()
        for cell in notebooks.parse(part.read_text(), part.name)
        if cell.kind == "steps"
        for step in steps.of(cell.args[0])
    ]


# engine/authoring imports Hugging Face: imported in the tests that need it, collecting the tests does not wait for it.


@pytest.fixture(scope="module")
def reference():
    return case_files.reference_steps()


def test_a_steps_block_becomes_each_step_numbered_its_helpers_exercise_cell_and_a_locked_check(tmp_path):
    part = tmp_path / "99_part.md"
    part.write_text(
        "# A part\n\n```setup\n```\n\n```steps attention\n```\n\n```exercise scaled_dot_product_attention\n```\n\n"
        "```graded attention\ncheck_attention(scaled_dot_product_attention)\n```\n"
    )
    cells = notebooks.source_notebook(part)["cells"]
    for number, step in enumerate(steps.of("attention"), 1):
        (index,) = [i for i, c in enumerate(cells) if c["source"].startswith(f"def {step.name}(")]
        heading, exercise, check = cells[index - 1], cells[index], cells[index + 1]
        assert heading["cell_type"] == "markdown" and heading["source"].startswith(
            f"**Step {number}, {step.title}** ({step.minutes} min, {step.difficulty})."
        )
        assert exercise["metadata"]["nbgrader"]["solution"] and "### BEGIN SOLUTION" in exercise["source"]
        assert "def scaled_dot_product_attention" not in exercise["source"]
        assert check["source"].endswith(f"check_step({step.name!r}, {step.name})")
        meta = check["metadata"]
        assert meta["nbgrader"]["locked"] and not meta["nbgrader"]["grade"] and loader.DEMO_TAG in meta["tags"]
    # Grading reads the helper with the notebook's code, and never runs the check.
    units = loader.load_files("sub", [("99_part.ipynb", json.dumps(notebooks.source_notebook(part)))]).units
    assert any("def attention_scores(" in u.code for u in units)
    assert not any("check_step" in u.code for u in units)


def test_a_steps_number_is_written_nowhere_by_hand():
    """The builder numbers a component's steps in the order they are declared: neither the reference's docstrings
    nor the parts' prose give a step's number."""
    for path in spec.SOLUTIONS.glob("*.py"):
        assert not re.search(r"\bStep \d", path.read_text()), path.name
    said = " ".join(part.read_text() for part in notebooks.parts())
    assert "**Step " not in said and "in three steps" not in said


@pytest.mark.parametrize(
    "block, problem",
    [
        ("```steps masking\n```\n", "masking has no steps"),
        ("```steps scaled_dot_product_attention\n```\n", "scaled_dot_product_attention has no steps"),
        ("```steps attention multihead\n```\n", "takes one component and an empty block"),
        ("```steps attention\ncheck_step(attention_scores)\n```\n", "an empty block"),
    ],
)
def test_malformed_steps_blocks_are_refused(tmp_path, block, problem):
    part = tmp_path / "99_part.md"
    part.write_text(block)
    with pytest.raises(KitFault, match=problem):
        notebooks.source_notebook(part)


def test_every_declared_step_is_asked_once_and_has_its_cases_and_hint():
    asked = parts_steps()
    cased = {case.target for case in public.PUBLIC.cases("steps")}
    assert sorted(asked) == sorted(set(asked)), "a step is asked twice"
    assert set(asked) == set(steps.BY_NAME) == cased
    for step in steps.STEPS:
        assert notebooks.step_reference(step.name).stem == step.component, step.name
        assert hints.step(step.name) == step.hint and step.title and step.says


# A call as code writes it: torch.tril(, F.softmax(, scores.masked_fill(, x.view(.
CALL = re.compile(r"\b(?:torch|F|nn)\.\w+\(|\w\.\w+\(")


def test_a_steps_hint_states_what_is_checked_and_names_no_call():
    """A failing step's hint was the line itself ("scores.masked_fill(~mask, float('-inf'))"): a student copied it
    (issue 46). It says what the check holds the step to; the call is the ladder's last level, asked for."""
    called = {step.name: CALL.findall(step.hint) for step in steps.STEPS}
    assert {name: calls for name, calls in called.items() if calls} == {}
    assert CALL.findall("fill them (scores.masked_fill(~mask, x)), then torch.softmax(s, -1) and F.gelu(x)") == [
        "s.masked_fill(",
        "torch.softmax(",
        "F.gelu(",
    ]


def test_the_reference_steps_pass_their_checks(reference, capsys):
    for name, function in reference.items():
        assert public.check_step(name, function) is None  # no Out[] under the check cell
        cases = len([c for c in public.PUBLIC.cases("steps") if c.target == name])
        assert capsys.readouterr().out.endswith(f"{name}: all {cases} public checks passed\n")


@pytest.mark.parametrize("name", sorted(steps.BY_NAME))
def test_a_wrong_step_is_told_so_with_its_hint(name):
    step = steps.BY_NAME[name]
    with pytest.raises(public.Failed) as failure:
        public.check_step(name, step.wrong, quiet=True)
    assert failure.value.passed < failure.value.total
    assert f"Hint: {step.hint}" in str(failure.value)


def test_an_unwritten_step_is_not_started_and_an_unknown_one_is_named():
    def attention_scores(query, key):
        raise NotImplementedError

    with pytest.raises(public.NotStarted, match="attention_scores is not written yet"):
        public.check_step("attention_scores", attention_scores, quiet=True)
    with pytest.raises(KitFault, match="not_a_step is not one of the course's steps"):
        public.check_step("not_a_step", attention_scores)


def test_the_worked_examples_numbers_in_the_prose_are_what_torch_computes():
    """The numbers the parts work out by hand before their exercises, computed."""

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
