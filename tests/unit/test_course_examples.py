"""The worked examples of parts 1, 3, 5, 6 and 7: the numbers their prose works out by hand are what their cells
compute with the reference. The cells run in this process, without a kernel or a notebook (about a second; the
cells that draw, and part 5's that load the pretrained model, are left out)."""

import math
import re

import pytest
import torch
from torch.nn import functional as F

from autograder.course import jupyter, notebooks
from autograder.engine.contract import spec
from autograder.engine.judge.tolerances import TOLERANCES


@pytest.fixture
def run_examples(monkeypatch):
    """Run a part's worked examples (its ```python blocks) in order, with the reference's names; their namespace."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda: plt.close("all"))

    def run(stem, leave_out=()):
        names, problems = jupyter.load_names(spec.SOLUTIONS)
        assert not problems, problems
        namespace = dict(names)
        exec("\n".join(notebooks.STANDARD_IMPORTS), namespace)
        for cell in notebooks.parse((notebooks.PARTS / f"{stem}.md").read_text()):
            if cell.kind == "python" and not any(name in cell.text for name in leave_out):
                exec(cell.text, namespace)
        return namespace

    return run


def prose(stem):
    return " ".join((notebooks.PARTS / f"{stem}.md").read_text().split())


def written(values):
    """A vector as the prose writes it: (a, b, ...), three decimals, trailing zeros dropped."""
    return "(" + ", ".join(f"{v:.3f}".rstrip("0").rstrip(".") for v in values) + ")"


def layer_norm(x):
    return F.layer_norm(x, x.shape[-1:], eps=1e-12)


def test_part_1_worked_example_through_the_function_is_what_its_prose_works_out(run_examples):
    names, text = run_examples("01_attention", leave_out=("plot_",)), prose("01_attention")
    weights, output, blocked = names["weights"][0], names["output"][0], names["blocked_weights"][0]  # (S,), (Dv,), (S,)
    assert blocked[2] == 0 and torch.allclose(blocked.sum(), torch.tensor(1.0))
    assert (
        f"the weights should be {', '.join(f'{w:.3f}' for w in weights)}, and the output "
        f"({output[0]:.2f}, {output[1]:.2f}); with key 2 blocked, the weights {blocked[0]:.3f}, {blocked[1]:.3f} and 0."
    ) in text
    assert f"7.389 / 8.389 = {blocked[0]:.3f} and 1 / 8.389 = {blocked[1]:.3f}" in text


def _gelu(x):
    return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))


def _gelu_gap(x):
    """|exact GELU - its tanh approximation| at x, in float64, without torch."""
    return abs(_gelu(x) - 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))))


def test_part_3_gelu_gap_printed_and_said_is_the_true_largest(run_examples, capsys):
    """The cell once sampled the integers only and printed 4.1e-4 under prose that said 5e-4. The truth: the gap's
    maximum by golden-section search on [2, 3], where it peaks (it is odd-symmetric: |gap(-x)| = |gap(x)|)."""
    low, high, ratio = 2.0, 3.0, (math.sqrt(5) - 1) / 2
    for _ in range(100):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (a, high) if _gelu_gap(a) < _gelu_gap(b) else (low, b)
    peak, truth = low, _gelu_gap(low)
    run_examples("03_feedforward_layernorm")
    found = re.search(r"largest difference ([\d.e+-]+), at x = (-?[\d.]+)", capsys.readouterr().out)
    assert found, "the GELU cell prints its largest difference"
    printed, where = float(found[1]), float(found[2])
    assert abs(printed - truth) <= 0.02 * truth and abs(abs(where) - peak) < 0.01, (printed, where, truth, peak)
    text = prose("03_feedforward_layernorm")
    assert f"differs by up to {found[1]} (at x = ±{abs(where):.2f})" in text
    times = [_gelu_gap(x) / TOLERANCES["float32"].slack(_gelu(x)) for x in (2.7, -2.7)]
    assert f"at x = 2.7 the difference is about {times[0]:.1f} times it" in text, times
    assert f"where GELU is nearly 0, about {times[1]:.0f} times" in text, times


def test_part_5_add_and_norm_and_the_pooler_by_hand_are_what_torch_computes(run_examples):
    names = run_examples("05_encoder_heads", leave_out=("pretrained(", "attention_maps("))
    text = prose("05_encoder_heads")
    ones, s = torch.ones(4, dtype=torch.float64), names["sublayer_output"]
    assert s.tolist() == [0, 1, 2, 5] and f"LN(x + sublayer) = {written(layer_norm(ones + s))}" in text
    assert (s - s.mean()).tolist() == [-2, -1, 0, 3] and "same deviations from its mean, (-2, -1, 0, 3)" in text
    assert f"= {written(ones + layer_norm(s))}, whose mean is 1" in text and (ones + layer_norm(s)).mean() == 1

    weights, output, x = names["weights"], names["output"], names["x"]  # (T, S), (T, D), (T, D)
    assert weights[0].tolist() == [0.5, 0.5, 0] and "the two real keys get 1/2 each" in text
    assert (weights @ x)[0].tolist() == [1, 2, 3, 6] and "(x₀ + x₁) / 2 = (1, 2, 3, 6)" in text
    assert names["scores"][1, 1] == 100 and "x₁ · x₁ / 2 = 100 against itself" in text
    assert (weights @ x)[1].tolist() == x[1].tolist() and (2 * x[1]).tolist() == [4, 8, 12, 24]
    assert "x₁ + x₁ = (4, 8, 12, 24)" in text
    for row in output[:2]:
        assert torch.allclose(row, layer_norm(torch.tensor([1.0, 2, 3, 6], dtype=torch.float64)))
    assert f"its output is {written(output[0])} once more" in text
    assert x.sum(0).tolist() == [10, 4, 6, 12] and "context (10, 4, 6, 12) / 3" in text
    assert f"the output {written(names['unmasked'][0])}" in text

    hidden, weight, bias = names["hidden_states"], names["weight"], names["bias"]
    dense = hidden[:, 0] @ weight.T  # (B, D)
    assert dense.tolist() == [[0, 2]] and (dense + bias).tolist() == [[0, 1]]
    pooled = torch.tanh(dense + bias)[0]
    assert (
        "W h₀ = (1 - 1, 2 + 0) = (0, 2); adding the bias gives (0, 1)" in text
        and f"(tanh 0, tanh 1) = (0, {pooled[1]:.4f})" in text
    )


def test_part_6_cross_attention_by_hand_is_what_torch_computes(run_examples):
    names, text = run_examples("06_decoder"), prose("06_decoder")
    assert names["self_mask"][1, 0].sum().item() == 18 and "1 + 2 + 3 + 4 + 4 + 4 = 18" in text
    weights, output = names["weights"][0], names["output"][0]  # (T, S), (T, D)
    assert torch.allclose(weights, torch.tensor([[1 / 2, 1 / 2, 0], [3 / 4, 1 / 4, 0]], dtype=torch.float64))
    assert torch.allclose(output, torch.tensor([[1.0, 2, 0, 0], [1.5, 1, 0, 0]], dtype=torch.float64))
    assert "1/2 each" in text and "the weights 3/4 and 1/4" in text
    assert "= [1, 2, 0, 0]" in text and "its output is [1.5, 1, 0, 0]" in text
    first = names["x"][0, 0] + output[0]  # (D,)
    assert first.tolist() == [1, 2, 0, 0] and f"whose mean is {first.mean():.2f}" in text
    variance = first.var(unbiased=False)
    assert f"2.75 / 4 = {variance:.4f}" in text and f"square root, {variance.sqrt():.3f}" in text
    assert torch.allclose(names["normed"][0, 0], layer_norm(first))
    assert f"LN = {written(layer_norm(first))}" in text
    assert torch.softmax(names["self_scores"], dim=-1)[0, 0].tolist() == [1, 0] and "(weights [1, 0])" in text


def test_part_7_greedy_decoding_by_hand_is_what_the_reference_decodes(run_examples):
    names, text = run_examples("07_seq2seq"), prose("07_seq2seq")
    by_hand = names["BY_HAND"]
    assert torch.equal(names["decoded"], by_hand)
    rows = [str(row) for row in by_hand.tolist()]
    assert f"rows {rows[0]}, {rows[1]} and {rows[2]}" in text
    assert f"the result is 1 + {by_hand.size(1) - 1} = {by_hand.size(1)} tokens long" in text


def _rows(indices):
    if not indices:
        return "none"
    return f"row {indices[0]}" if len(indices) == 1 else f"rows {', '.join(map(str, indices[:-1]))} and {indices[-1]}"


def test_part_7_table_is_what_the_reference_steps_compute(run_examples):
    """Each row of the hand trace's table, step by step through the reference's own finish_rows, and the
    table's step 2 as the worked example prints it."""
    from autograder.engine.authoring import case_files  # it imports Hugging Face: not while the tests are collected

    names, text = run_examples("07_seq2seq"), prose("07_seq2seq")
    proposals, finish_rows = names["PROPOSALS"], case_files.reference_steps()["finish_rows"]
    finished = torch.zeros(proposals.size(0), dtype=torch.bool)
    for step in range(proposals.size(1)):
        before = finished
        appended, finished = finish_rows(proposals[:, step], before, names["EOS"], names["PAD"])
        new = (finished & ~before).nonzero().flatten().tolist()
        cells = [
            str(step),
            ", ".join(map(str, proposals[:, step].tolist())),
            _rows(before.nonzero().flatten().tolist()),
            ", ".join("PAD" if done else str(token) for done, token in zip(before.tolist(), appended.tolist())),
        ]
        row = "| " + " | ".join(cells) + (f": {_rows(new)} emits EOS" if new else "")
        assert row + (", every row has finished |" if finished.all() else " |") in text, row
        if step == 2:
            assert names["next_token"].masked_fill(names["finished"], names["PAD"]).tolist() == appended.tolist()
        if finished.all():
            break
    assert f"| {step + 1} |" not in text and f"decoding stops after step {step}" in text
    assert f"after its EOS ({proposals[0, 2]}, {proposals[0, 3]}) never appear" in text


def test_part_7_untrained_model_shows_a_finished_row_and_one_that_runs_out(run_examples):
    names, text = run_examples("07_seq2seq"), prose("07_seq2seq")
    untrained, eos = names["untrained"], 10
    ended, ran_out = untrained[1].tolist(), untrained[0].tolist()
    step = ended.index(eos)  # the row's position: BOS, then one token a step
    assert eos not in ran_out and set(ended[step + 1 :]) == {0} and step < len(ended) - 1
    assert f"With EOS = {eos}, the second row emits EOS at its {ORDINALS[step - 1]} step" in text
    assert f"the result is 1 + {untrained.size(1) - 1} = {untrained.size(1)} tokens long" in text


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
