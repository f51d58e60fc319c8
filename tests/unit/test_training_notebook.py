"""The last notebook's training: the graded training component's public checks fail the usual mistakes written
as students write them; the check of its ungraded exercise passes on the reference and says what to change; the
held-out sources are never trained on; the grader loads the graded exercises and leaves the ungraded one out. (The notebook run in a kernel, learning or not:
tests/system/test_training_notebook.py.)"""

import re

import pytest
import torch
from support import breakout_facts
from support.breakout_facts import training_reference
from support.course_helpers import completed
from torch.nn import functional as F

from autograder.breakout import bank
from autograder.course import notebooks, public
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


def test_the_checks_of_the_ungraded_exercises_pass_on_the_reference(capsys):
    reference = training_reference()
    task.check_overfit_one_batch(reference.overfit_one_batch)
    task.check_train(reference.train, reference.learning_rate)
    assert capsys.readouterr().out.count("all checks passed") == 2


def loop(rate_after=False, constant=False, every_batch=False, mean_of_all=False, validate_first=False, clip=True):
    """The training loop with one thing wrong, as students write it."""
    reference = training_reference()

    def train(model, optimizer, batches, validate, *, steps, peak, warmup_steps, every, max_norm=None, **ids):
        losses = []
        for step in range(1, steps + 1):
            rate = peak if constant else reference.learning_rate(step, peak, warmup_steps, steps)
            if not rate_after:
                optimizer.param_groups[0]["lr"] = rate
            batch = next(batches)
            if every_batch:
                batch = next(batches)
            if validate_first and step % every == 0:
                validated = validate(model)
            losses.append(reference.training_step(model, optimizer, batch, max_norm=max_norm if clip else None, **ids))
            if rate_after:
                optimizer.param_groups[0]["lr"] = rate
            if step % every == 0:
                mean = sum(losses) / len(losses) if mean_of_all else sum(losses[-every:]) / every
                yield step, mean, validated if validate_first else validate(model)

    return train


LOOPS = {
    "the rate set after the step": (loop(rate_after=True), "set every group's lr before the step"),
    "no schedule": (loop(constant=True), "step 1 ran at learning rate"),
    "two batches a step": (loop(every_batch=True), "take next\\(batches\\) once a step"),
    "the mean of every loss so far": (loop(mean_of_all=True), "the mean of the last 4 steps' losses"),
    "validated before the step": (loop(validate_first=True), "after the step"),
    "max_norm not passed on": (loop(clip=False), "pass max_norm on"),
}


def test_the_pre_ln_check_passes_on_the_reference_and_names_post_ln_and_a_norm_misplaced(capsys):
    reference = training_reference()
    task.check_pre_ln(reference.PreLNEncoderLayer, reference.PreLNDecoderLayer)
    assert capsys.readouterr().out.count("all checks passed") == 1
    names = breakout_facts.reference()
    with pytest.raises(StudentError, match="pre-LN encoder layer"):
        task.check_pre_ln(names["TransformerEncoderLayer"], reference.PreLNDecoderLayer)

    class CrossNormAfter(reference.PreLNDecoderLayer):
        def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
            attended, _ = self.self_attention(self.self_attention_norm(hidden_states), self_mask)
            hidden_states = hidden_states + attended
            attended, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)
            hidden_states = self.cross_attention_norm(hidden_states + attended)
            return hidden_states + self.feed_forward(self.output_norm(hidden_states))

    with pytest.raises(StudentError, match="pre-LN decoder layer"):
        task.check_pre_ln(reference.PreLNEncoderLayer, CrossNormAfter)


@pytest.mark.parametrize("mistake", LOOPS)
def test_the_loops_check_names_each_mistake(mistake):
    function, message = LOOPS[mistake]
    with pytest.raises(StudentError, match=message):
        task.check_train(function, training_reference().learning_rate)


def step(shift=True, ignore_pad=True, zero_grad=True, train_mode=True, item=True):
    """A training step with one thing wrong, as students write it."""

    def training_step(model, optimizer, batch, *, bos_token_id, pad_token_id, max_norm=None):
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
        if max_norm is not None:
            training_reference().clip_gradient_norm(model.parameters(), max_norm)
        optimizer.step()
        return loss.item() if item else loss

    return training_step


def shifted_left(target, bos):
    return torch.cat([target[:, 1:], torch.full_like(target[:, :1], bos)], dim=1)


# Written as students write them, each in one of training's names: the component's public checks fail every one.
# (Those of the catalog are named there too: tests/system/test_public.py.)
WRONG = {
    "no shift": ("shift_right", lambda target, bos: target.clone()),
    "shifted left": ("shift_right", shifted_left),
    "BOS added, nothing dropped": ("shift_right", lambda t, bos: torch.cat([torch.full_like(t[:, :1], bos), t], dim=1)),
    "padding counted in the loss": (
        "sequence_loss",
        lambda logits, target, pad: F.cross_entropy(logits.flatten(0, 1), target.flatten()),
    ),
    "summed loss": (
        "sequence_loss",
        lambda logits, target, pad: F.cross_entropy(
            logits.flatten(0, 1), target.flatten(), ignore_index=pad, reduction="sum"
        ),
    ),
    "loss cut from the graph": (
        "sequence_loss",
        lambda logits, target, pad: F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad).detach(),
    ),
    "a step without the shift": ("training_step", step(shift=False)),
    "a step that counts padding": ("training_step", step(ignore_pad=False)),
    "a step without zero_grad": ("training_step", step(zero_grad=False)),
    "a step in eval mode": ("training_step", step(train_mode=False)),
    "a step that returns a tensor": ("training_step", step(item=False)),
    "warm-up from 0 at step 1": (
        "learning_rate",
        lambda s, peak, w, total: (
            peak * min((s - 1) / w, (total - s) / (total - w)) if w else peak * (total - s) / total
        ),
    ),
    "no warm-up divides by 0": (
        "learning_rate",
        lambda s, peak, w, total: peak * min(s / w, (total - s) / (total - w)),
    ),
    "no warm-up starting at the peak": (
        "learning_rate",
        lambda s, peak, w, total: peak * min(s / w, (total - s) / (total - w)) if w else peak * (total - s + 1) / total,
    ),
}


@pytest.mark.parametrize("mistake", WRONG)
def test_the_public_checks_of_training_fail_each_mistake(mistake):
    name, function = WRONG[mistake]
    names = {**breakout_facts.reference(), name: function}
    with pytest.raises(public.Failed) as failure:
        public.check("training", {n: names[n] for n in training_names()}, quiet=True)
    assert failure.value.failures


def training_names():
    """training's names and the core's, whose model its checks build."""
    return [*spec.BY_ID["training"].names, *(n for c in spec.references_for("training") for n in c.names)]


def test_the_overfit_check_names_a_new_batch_each_step():
    with pytest.raises(StudentError, match="train on the one batch"):
        task.check_overfit_one_batch(
            lambda model, optimizer, batch, steps, **ids: [
                step()(model, optimizer, task.batch_of(batch[0].roll(i, 0)), **ids) for i in range(steps)
            ]
        )


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
    named = re.findall(r"^```exercise (\w+)", text, re.M)
    steps_named = [name for name in named if not name.startswith("PreLN")]  # the training's, then the variant
    lengths = task.TRAIN_LENGTHS
    assert list(lengths) == list(range(lengths[0], lengths[-1] + 1))
    words = dict(enumerate(["one", "two", "three", "four", "five", "six", "seven"], start=1))
    paragraph = " ".join((spec.KIT_ROOT / "docs" / "INSTRUCTORS.md").read_text().split())
    graded = [name for name in steps_named if name in spec.BY_ID["training"].names]
    assert graded == [name for name in spec.BY_ID["training"].names if name in graded] and len(graded) == 5
    for said in (
        f"the training in {words[len(steps_named)]} steps ({', '.join(f'`{s}`' for s in steps_named)}): the "
        f"first {words[len(graded)]} are the graded `training` component",
        f"the last {words[len(steps_named) - len(graded)]} ungraded exercises",
        "a pre-LN variant of the student's layers (`PreLNEncoderLayer`, `PreLNDecoderLayer`,",
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
        task.check_overfit_one_batch(stub)


def test_the_grader_loads_the_graded_exercises_and_leaves_the_ungraded_one_out(tmp_path):
    """Part 9's training names are graded (the training component): loaded; its ungraded exercise is not: loaded,
    it would only add notes on the statements the static check leaves out to every student's results."""
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student")
    submission = loader.load(folder / NOTEBOOK)
    assert submission.notes == [] and not [u for u in submission.units if "def overfit_one_batch" in u.code]
    assert "def overfit_one_batch" in (folder / NOTEBOOK).read_text()
    loaded = "\n".join(unit.code for unit in submission.units)
    assert all(f"def {name}(" in loaded for name in spec.BY_ID["training"].names)
