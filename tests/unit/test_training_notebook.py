"""The last notebook's training steps, each checked in the notebook: they pass on the reference, and fail, with a
sentence that says what to change, on the usual mistakes; the held-out sources are never trained on; the grader
leaves its ungraded exercises out. (The notebook run in a kernel, learning or not:
tests/system/test_training_notebook.py.)"""

import re

import pytest
import torch
from support.breakout_facts import training_reference
from support.course_helpers import completed
from torch.nn import functional as F

from autograder.breakout import bank
from autograder.course import notebooks
from autograder.course import training as task
from autograder.course.public import NotStarted
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import StudentError

NOTEBOOK = "09_train.ipynb"


# --- the data and the checks, without a notebook -------------------------------------------------------------


def test_the_held_out_sources_are_never_trained_on():
    split = task.reversal_split(seed=0)
    trained = {tuple(row) for pool in split.train.values() for row in pool.tolist()}
    for name, held_out in [("validation", split.validation), ("test", split.test), ("unseen", split.unseen)]:
        rows = [tuple(row) for row in held_out.tolist()]
        assert len(set(rows)) == len(rows) > 0 and not trained & set(rows), name
    assert not {tuple(r) for r in split.validation.tolist()} & {tuple(r) for r in split.test.tolist()}
    lengths = lambda sources: set((sources != task.PAD).sum(dim=1).tolist())  # noqa: E731
    assert lengths(split.unseen) == {task.UNSEEN_LENGTH} and task.UNSEEN_LENGTH not in task.TRAIN_LENGTHS
    for length in task.TRAIN_LENGTHS:
        assert len(split.train[length]) + 2 * task.HELD_OUT_PER_LENGTH == 10**length
    assert split.overlap() == 0
    leaked = task.Split({3: torch.cat([split.train[3], split.test[:1]])}, split.validation, split.test, split.unseen)
    assert leaked.overlap() == 1, "the overlap the notebook asserts can find a leak"
    source, _, _ = split.training_batch(512, torch.Generator().manual_seed(0))
    assert {tuple(row) for row in source.tolist()} <= trained and lengths(source) == set(task.TRAIN_LENGTHS)


def test_targets_are_the_digits_reversed_then_eos():
    sources = torch.tensor([[5, 7, 9, 0, 0, 0], [3, 4, 5, 6, 7, 8]])
    assert targets_of(sources) == [[9, 7, 5, 2, 0, 0, 0], [8, 7, 6, 5, 4, 3, 2]]
    assert task.digits(torch.tensor([5, 7, task.EOS, 9])) == "2 4"


def targets_of(sources):
    return task.targets(sources).tolist()


def test_every_check_passes_on_the_reference(capsys):
    module = training_reference()
    for name in ("shift_right", "sequence_loss", "training_step", "learning_rate", "overfit_one_batch"):
        getattr(task, f"check_{name}")(getattr(module, name))
    assert capsys.readouterr().out.count("all checks passed") == 5


def step(shift=True, ignore_pad=True, zero_grad=True, train_mode=True, item=True):
    """A training step with one thing wrong, as students write it."""

    def training_step(model, optimizer, batch, *, bos_token_id, pad_token_id):
        source, source_mask, target = batch
        if train_mode:
            model.train()
        decoder_input = training_reference().shift_right(target, bos_token_id) if shift else target
        logits = model(source, decoder_input, source_mask)
        loss = F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id if ignore_pad else -100
        )
        if zero_grad:
            optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item() if item else loss

    return training_step


def shifted_left(target, bos):
    return torch.cat([target[:, 1:], torch.full_like(target[:, :1], bos)], dim=1)


WRONG = {
    "no shift": (task.check_shift_right, lambda target, bos: target.clone(), "returned the target unchanged"),
    "shifted left": (task.check_shift_right, shifted_left, "first column must be BOS"),
    "BOS added, nothing dropped": (
        task.check_shift_right,
        lambda t, bos: torch.cat([torch.full_like(t[:, :1], bos), t], dim=1),
        "the shape stays \\(B, T\\)",
    ),
    "padding counted in the loss": (
        task.check_sequence_loss,
        lambda logits, target, pad: F.cross_entropy(logits.flatten(0, 1), target.flatten()),
        "counts the padding positions",
    ),
    "summed loss": (
        task.check_sequence_loss,
        lambda logits, target, pad: F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), ignore_index=pad, reduction="sum"
        ),
        "the sum over the real positions",
    ),
    "loss cut from the graph": (
        task.check_sequence_loss,
        lambda logits, target, pad: F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad).detach(),
        "cut from the graph",
    ),
    "a step without the shift": (task.check_training_step, step(shift=False), "read the target itself"),
    "a step that counts padding": (task.check_training_step, step(ignore_pad=False), "counts padding"),
    "a step without zero_grad": (task.check_training_step, step(zero_grad=False), "optimizer.zero_grad()"),
    "a step in eval mode": (task.check_training_step, step(train_mode=False), "model.train()"),
    "a step that returns a tensor": (task.check_training_step, step(item=False), "loss.item\\(\\)"),
    "warm-up from 0 at step 1": (
        task.check_learning_rate,
        lambda s, peak, w, total: peak * min((s - 1) / w, (total - s) / (total - w)),
        "step 1 .* should be 0.00075",
    ),
    "no warm-up divides by 0": (
        task.check_learning_rate,
        lambda s, peak, w, total: peak * min(s / w, (total - s) / (total - w)),
        "divides by zero",
    ),
    "no warm-up starting at the peak": (
        task.check_learning_rate,
        lambda s, peak, w, total: peak * min(s / w, (total - s) / (total - w)) if w else peak * (total - s + 1) / total,
        "with no warm-up, step 1 should be 0.0027",
    ),
    "a new batch each step": (
        task.check_overfit_one_batch,
        lambda model, optimizer, batch, steps, **ids: [
            step()(model, optimizer, task.batch_of(batch[0].roll(i, 0)), **ids) for i in range(steps)
        ],
        "train on the one batch",
    ),
}


@pytest.mark.parametrize("mistake", WRONG)
def test_each_check_names_the_mistake(mistake):
    check, function, message = WRONG[mistake]
    with pytest.raises(StudentError, match=message):
        check(function)


def test_no_warm_up_is_said_as_the_schedule_computes_it():
    """Part 9's sentence and its run without warm-up, and breakout 9's explanation: with warmup_steps = 0, step 1 is
    already on the line down (the check demands it: "no warm-up starting at the peak" above)."""
    rate = training_reference().learning_rate
    text = " ".join((notebooks.PARTS / "09_train.md").read_text().split())
    steps, peak, _ = (float(x) for x in re.search(r"STEPS, PEAK, WARMUP = (\d+), ([\d.]+), (\d+)", text).groups())
    assert f"peak · (T − 1) / T = {rate(1, 0.01, 0, 1000):.5f}, and step T is {rate(1000, 0.01, 0, 1000):g}" in text
    assert f"{peak:g} · {steps - 1:g} / {steps:g} ≈ {rate(1, peak, 0, steps):.4f}, all but the peak" in text
    (adam,) = [q for part in bank.load() for q in part.questions if q.id == "adam_first_step"]
    assert f"{peak:g} · {steps - 1:g}/{steps:g} ≈ {rate(1, peak, 0, steps):.4f}" in " ".join(adam.explanation.split())


def test_the_instructors_paragraph_describes_the_notebook_as_it_is():
    """docs/INSTRUCTORS.md once described a notebook 9 that no longer existed (3 to 6 digits, 400 steps). What the
    run shows is held to the paragraph by tests/system/test_training_notebook.py; what it is, here."""
    text = (notebooks.PARTS / "09_train.md").read_text()
    steps, peak, warmup = re.search(r"STEPS, PEAK, WARMUP = (\d+), ([\d.]+), (\d+)", text).groups()
    (batch,) = set(re.findall(r"split\.training_batch\((\d+), generator\)", text))
    width, layers = (re.search(rf"{name}=(\d+)", text)[1] for name in ("hidden_size", "num_hidden_layers"))
    steps_named = re.findall(r"^```exercise (\w+)", text, re.M)
    lengths = task.TRAIN_LENGTHS
    assert list(lengths) == list(range(lengths[0], lengths[-1] + 1))
    words = dict(enumerate(["one", "two", "three", "four", "five", "six"], start=1))
    paragraph = " ".join((spec.KIT_ROOT / "docs" / "INSTRUCTORS.md").read_text().split())
    for said in (
        f"the training in {words[len(steps_named)]} steps, each checked at once "
        f"({', '.join(f'`{s}`' for s in steps_named)};",
        f"(D = {width}, {words[int(layers)]} layers each) to reverse {lengths[0]} to {lengths[-1]} digits: {steps} AdamW steps on "
        f"batches of {batch}, warm-up over {warmup} steps to a peak of {peak}",
        f"of each length, {task.HELD_OUT_PER_LENGTH} for validation and {task.HELD_OUT_PER_LENGTH} for the test",
        f"the test sources and {task.HELD_OUT_PER_LENGTH} sources of {task.UNSEEN_LENGTH} digits, a length never "
        "trained on",
    ):
        assert said in paragraph, said


def test_an_unwritten_step_is_not_started_not_a_failure():
    def stub(*args, **kwargs):
        raise NotImplementedError

    with pytest.raises(NotStarted, match="not written yet"):
        task.check_shift_right(stub)


def test_the_grader_leaves_the_ungraded_exercises_out(tmp_path):
    """Part 9's exercises define no graded name: loaded, they only added notes on the statements the static check
    leaves out ("line 12 uses .full_like") to every student's results."""
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student")
    submission = loader.load(folder / NOTEBOOK)
    assert submission.notes == [] and not [u for u in submission.units if "def training_step" in u.code]
    assert "def training_step" in (folder / NOTEBOOK).read_text()
