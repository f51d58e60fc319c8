"""The last notebook: the student writes the training steps, each checked in the notebook, then trains their own
components. With correct ones the model learns to reverse digits it has never seen, warm-up is what lets it use
its peak learning rate, and a head of its cross-attention reads the source backwards; with a layer norm that cuts
the gradient (a cataloged mistake, which passes every forward check in eval mode) the same notebook shows that it
does not learn. The checks of the steps fail, with a sentence that says what to change, on the usual mistakes."""

import json
import re

import pytest
import torch
from breakout_facts import training_reference
from course_helpers import completed, execute, install_test_kernel, outputs
from torch.nn import functional as F

from autograder.course import notebooks
from autograder.course import training as task
from autograder.course.public import NotStarted
from autograder.engine.build import mistakes
from autograder.engine.contract import loader

NOTEBOOK = "09_train.ipynb"
# The notebook trains 300 steps (warm-up 30); under test, half of that with the same seeds, to keep the tests cheap
# (the full run is measured by hand: see the commit). The thresholds are what the prose promises.
FULL, SHORT = "STEPS, PEAK, WARMUP = 300, 0.02, 30", "STEPS, PEAK, WARMUP = 150, 0.02, 15"
LEARNED_LOSS, LEARNED_MATCH, LEARNED_CLASSIFIER = 0.1, 0.95, 0.9


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    return install_test_kernel(tmp_path_factory.mktemp("jupyter"))


def shortened(folder):
    path = folder / NOTEBOOK
    text = path.read_text()
    assert json.dumps(FULL)[1:-1] in text, "the notebook's training length moved: update FULL"
    path.write_text(text.replace(json.dumps(FULL)[1:-1], json.dumps(SHORT)[1:-1]))
    return folder


def number(pattern, text):
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not printed:\n{text}"
    return float(found.group(1))


def train(folder, env):
    """Run the notebook in a folder; returns {what it printed: the number}, and the text."""
    nb = execute(shortened(folder) / NOTEBOOK, env)
    problems = outputs(nb, "error") + [(i, o) for i, o in outputs(nb, "stream") if o["name"] == "stderr"]
    assert problems == []
    text = "".join(o.get("text", "") for _, o in outputs(nb, "stream"))
    assert sum("image/png" in o.get("data", {}) for _, o in outputs(nb, "display_data")) >= 5, "the curves"
    found = {
        "validation": number(r"final training loss [\d.]+, validation loss ([\d.]+)", text),
        "match": number(r"exact match on the test sources ([\d.]+)%", text) / 100,
        "unseen": number(rf"exact match on {task.UNSEEN_LENGTH} digits ([\d.]+)%", text) / 100,
        "cold validation": number(r"validation loss with warm-up [\d.]+, without ([\d.]+)", text),
        "cold match": number(r"exact match on the test sources without warm-up ([\d.]+)%", text) / 100,
        "backwards": number(r"the source position it copies for ([\d.]+)% of the digits", text) / 100,
        "classifier": number(r"classification accuracy ([\d.]+)%", text) / 100,
    }
    return found, text


def test_correct_components_run_clean_and_learn_to_reverse_digits(kernel_env, tmp_path):
    """The reference's exercises in the release notebooks (test_course runs every other source notebook)."""
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student")
    found, text = train(folder, kernel_env)
    assert text.count("all checks passed") == 5 and "every parameter gets a gradient" in text, text
    assert "one batch memorised" in text and "no held-out source is a training source" in text, text
    assert found["validation"] < LEARNED_LOSS and found["match"] >= LEARNED_MATCH, found
    assert found["classifier"] >= LEARNED_CLASSIFIER, found
    # What the prose says of the length never trained on, of the run without warm-up, and of the attention.
    assert found["unseen"] < 0.1, found
    assert found["cold validation"] > 1 and found["cold match"] < 0.2, found
    assert found["backwards"] >= 0.8, found


def test_a_layer_norm_that_detaches_its_input_does_not_learn(kernel_env, tmp_path):
    mistake = mistakes.BY_ID["layernorm/input-detached"]
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student", mistake.edits)
    found, text = train(folder, kernel_env)
    # The classifier still learns a little: its head trains on the frozen, random features of the encoder.
    assert found["validation"] > 10 * LEARNED_LOSS and found["match"] < 0.2 and found["classifier"] < 0.7, found
    assert "parameters get no gradient" in text and "embeddings" in text and "could not memorise one batch" in text


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
    with pytest.raises(task.StepFailed, match=message):
        check(function)


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
