"""The worked examples of parts 6 and 7: the numbers their prose works out by hand are what their cells compute
with the reference. The cells run in this process, without a kernel or a notebook (about a second)."""

import pytest
import torch

from autograder.course import jupyter, notebooks
from autograder.engine.build import fixtures
from autograder.engine.contract import spec


@pytest.fixture
def run_examples(monkeypatch):
    """Run a part's worked examples (its ```python blocks) in order, with the reference's names; their namespace."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda: plt.close("all"))

    def run(stem):
        names, problems = jupyter.load_names(spec.SOLUTIONS)
        assert not problems, problems
        namespace = dict(names)
        exec("\n".join(notebooks.STANDARD_IMPORTS), namespace)
        for cell in notebooks.parse((notebooks.PARTS / f"{stem}.md").read_text()):
            if cell.kind == "python":
                exec(cell.text, namespace)
        return namespace

    return run


def prose(stem):
    return " ".join((notebooks.PARTS / f"{stem}.md").read_text().split())


def test_part_6_cross_attention_by_hand_is_what_torch_computes(run_examples):
    names, text = run_examples("06_decoder"), prose("06_decoder")
    assert names["self_mask"][1, 0].sum().item() == 18 and "1 + 2 + 3 + 4 + 4 + 4 = 18" in text
    weights, output = names["weights"][0], names["output"][0]  # (T, S), (T, D)
    assert torch.allclose(weights, torch.tensor([[1 / 2, 1 / 2, 0], [3 / 4, 1 / 4, 0]], dtype=torch.float64))
    assert torch.allclose(output, torch.tensor([[1.0, 2, 0, 0], [1.5, 1, 0, 0]], dtype=torch.float64))
    assert "1/2 each" in text and "the weights 3/4 and 1/4" in text
    assert "= [1, 2, 0, 0]" in text and "its output is [1.5, 1, 0, 0]" in text


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
    names, text = run_examples("07_seq2seq"), prose("07_seq2seq")
    proposals, finish_rows = names["PROPOSALS"], fixtures.reference_steps()["finish_rows"]
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
