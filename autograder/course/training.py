"""Part 9's task and the checks of its exercises (course/exercises/training.py holds their reference).

The task: reverse a sequence of digits. The data have a true held-out split: every source of 3 to 5 digits
is either a training source or held out (validation or test), never both, and no source of 6 digits is ever
trained on. Each check runs the student's function on a small case, prints what passed, and stops at the
first mistake with a sentence that says what is wrong and what to do (StudentError); a function that still
raises NotImplementedError stops with NotStarted. Nothing here is graded.
"""

import functools
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from autograder.course import ladder
from autograder.course.public import NotStarted
from autograder.engine.contract.errors import StudentError

PAD, BOS, EOS = 0, 1, 2
DIGIT = 3  # the token of digit d is DIGIT + d
VOCAB_SIZE = DIGIT + 10
TRAIN_LENGTHS = (3, 4, 5)
UNSEEN_LENGTH = 6  # held out whole: no source of this length is ever trained on
WIDTH = UNSEEN_LENGTH  # sources are padded to this many positions, targets to one more (EOS)
HELD_OUT_PER_LENGTH = 100  # of each trained length, for validation, and as many again for the test


def all_sources(length):
    """Every source of `length` digits, as token ids padded to WIDTH: (10**length, WIDTH)."""
    numbers = torch.arange(10**length)
    digits = torch.stack([(numbers // 10**k) % 10 for k in reversed(range(length))], dim=1)
    return F.pad(digits + DIGIT, (0, WIDTH - length), value=PAD)


def targets(sources):
    """The digits of each source reversed, then EOS, then padding: (N, WIDTH + 1)."""
    lengths = (sources != PAD).sum(dim=1)
    positions = torch.arange(WIDTH + 1)
    # Target position t < length holds source position length - 1 - t.
    reading = (lengths[:, None] - 1 - positions).clamp(min=0, max=WIDTH - 1)
    reversed_digits = sources.gather(1, reading)
    filled = torch.where(positions < lengths[:, None], reversed_digits, PAD)
    return filled.masked_fill(positions == lengths[:, None], EOS)


def batch_of(sources):
    """(source, source_mask, target) of these sources: what training_step takes."""
    return sources, (sources != PAD).long(), targets(sources)


@dataclass
class Split:
    train: dict  # {length: the training sources of that length}
    validation: torch.Tensor
    test: torch.Tensor
    unseen: torch.Tensor  # sources of UNSEEN_LENGTH digits

    def overlap(self):
        """How many held-out sources (validation, test, unseen) are also training sources."""
        seen = {tuple(row) for pool in self.train.values() for row in pool.tolist()}
        held_out = torch.cat([self.validation, self.test, self.unseen])
        return sum(tuple(row) in seen for row in held_out.tolist())

    def training_batch(self, size, generator):
        """size training sources: a length drawn uniformly from TRAIN_LENGTHS, then a source of that length."""
        lengths = torch.tensor(TRAIN_LENGTHS)[torch.randint(len(TRAIN_LENGTHS), (size,), generator=generator)]
        rows = torch.empty(size, WIDTH, dtype=torch.long)
        for length, pool in self.train.items():
            chosen = lengths == length
            rows[chosen] = pool[torch.randint(len(pool), (int(chosen.sum()),), generator=generator)]
        return batch_of(rows)


def reversal_split(seed=0):
    """Each trained length's sources shuffled: the first HELD_OUT_PER_LENGTH for validation, as many for the
    test, the rest for training; and HELD_OUT_PER_LENGTH sources of UNSEEN_LENGTH digits."""
    generator = torch.Generator().manual_seed(seed)
    train, validation, test = {}, [], []
    for length in TRAIN_LENGTHS:
        sources = all_sources(length)[torch.randperm(10**length, generator=generator)]
        validation.append(sources[:HELD_OUT_PER_LENGTH])
        test.append(sources[HELD_OUT_PER_LENGTH : 2 * HELD_OUT_PER_LENGTH])
        train[length] = sources[2 * HELD_OUT_PER_LENGTH :]
    unseen = all_sources(UNSEEN_LENGTH)[torch.randperm(10**UNSEEN_LENGTH, generator=generator)[:HELD_OUT_PER_LENGTH]]
    return Split(train, torch.cat(validation), torch.cat(test), unseen)


def digits(tokens):
    """The digits a row of tokens spells, up to its EOS."""
    spelled = []
    for token in tokens.tolist():
        if token == EOS:
            break
        if token >= DIGIT:
            spelled.append(str(token - DIGIT))
    return " ".join(spelled) or "(none)"


def _call(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except NotImplementedError as error:
        raise NotStarted(f"{function.__name__} is not written yet: it still raises NotImplementedError") from error


def _offering(check):
    """The check, which prints the hint that matches (ladder.offer) where it finds a mistake, before its error."""

    @functools.wraps(check)
    def checked(function, *args, **kwargs):
        try:
            return check(function, *args, **kwargs)
        except StudentError:
            offered = ladder.offer((check.__name__.removeprefix("check_"),))
            if offered:
                print(offered)
            raise

    return checked


def _passed(what):
    print(f"  ok: {what}")


# A target with padding in both rows, small enough to read: 5 7 9 EOS PAD and 4 EOS PAD PAD PAD.
EXAMPLE_TARGET = torch.tensor([[8, 10, 12, EOS, PAD], [7, EOS, PAD, PAD, PAD]])


@_offering
def check_shift_right(shift_right):
    target = EXAMPLE_TARGET.clone()
    expected = torch.tensor([[BOS, 8, 10, 12, EOS], [BOS, 7, EOS, PAD, PAD]])
    result = _call(shift_right, target, BOS)
    if not torch.equal(target, EXAMPLE_TARGET):
        raise StudentError("shift_right changed the target it was given: build a new tensor (torch.cat), not in place")
    if not isinstance(result, torch.Tensor) or result.shape != target.shape:
        shape = tuple(result.shape) if isinstance(result, torch.Tensor) else type(result).__name__
        raise StudentError(
            f"shift_right gave {shape} for a target of shape {tuple(target.shape)}: the decoder reads one token "
            "per target position, so the shape stays (B, T): BOS in front, and the last target token dropped"
        )
    _passed("the shape stays (B, T)")
    if torch.equal(result, target):
        raise StudentError(
            "shift_right returned the target unchanged: the decoder would read the very token it must predict "
            "and learn to copy its input. Put BOS in front and drop the last token."
        )
    if not (result[:, 0] == BOS).all():
        raise StudentError(f"the first column must be BOS ({BOS}) in every row; yours is {result[:, 0].tolist()}")
    _passed("every row starts with BOS")
    if not torch.equal(result, expected):
        raise StudentError(
            f"for the target {target.tolist()} the decoder input is {expected.tolist()}, yours is "
            f"{result.tolist()}: position t must hold target[:, t - 1] (the shift goes right, by one)"
        )
    _passed("position t holds the target's token t - 1")
    print("shift_right: all checks passed")


@_offering
def check_sequence_loss(sequence_loss):
    logits = torch.randn(2, 5, VOCAB_SIZE, generator=torch.Generator().manual_seed(0), requires_grad=True)
    target = EXAMPLE_TARGET
    flat_logits, flat_target = logits.flatten(0, 1), target.flatten()
    real = flat_target != PAD
    each = F.cross_entropy(flat_logits, flat_target, reduction="none")
    right = each[real].mean()
    result = _call(sequence_loss, logits, target, PAD)
    if not isinstance(result, torch.Tensor) or result.dim() != 0:
        raise StudentError("sequence_loss must return one number as a 0-dim tensor (the mean), not a float or a list")
    if not result.requires_grad:
        raise StudentError("the loss is cut from the graph (.item(), .detach() or torch.no_grad()): keep the tensor")
    _passed("one number, still in the graph")
    mistakes = {
        "it counts the padding positions too: the model would be trained to predict PAD after EOS, and "
        "the short rows would weigh more. Leave them out (ignore_index=pad_token_id).": each.mean(),
        "it is the sum over the real positions, not their mean: the loss, and the step, would grow with the "
        "batch size": each[real].sum(),
        "it divides by every position, padding included: average over the positions that are not padding "
        "(ignore_index does this)": each[real].sum() / len(each),
    }
    if not torch.isclose(result.detach(), right.detach()):
        likely = next(
            (text for text, value in mistakes.items() if torch.isclose(result.detach(), value.detach())), None
        )
        raise StudentError(
            f"on 2 rows with {int(real.sum())} real positions out of 10 the loss is {right.item():.4f}, yours is "
            f"{result.item():.4f}: " + (likely or "flatten B and T together (logits to (B*T, V), target to (B*T,))")
        )
    _passed(f"the mean over the {int(real.sum())} positions that are not padding ({right.item():.4f})")
    print("sequence_loss: all checks passed")


class _Spy(nn.Module):
    """A stand-in for the model: logits from a table of (decoder token, source token) scores, and a record of
    how it was called."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(VOCAB_SIZE, VOCAB_SIZE, generator=torch.Generator().manual_seed(1)))
        self.calls = []

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        self.calls.append((self.training, decoder_input_ids.clone(), attention_mask))
        first_source = self.table[input_ids[:, :1]]  # (B, 1, V)
        return self.table[decoder_input_ids] + first_source


def _spy_step(training_step, lr=0.5):
    """Run the student's step on a spy whose gradient holds a stale value, as after an earlier step."""
    model = _Spy().eval()
    before = model.table.detach().clone()
    model.table.grad = torch.full_like(before, 100.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    batch = batch_of(torch.tensor([[5, 7, 9, PAD, PAD, PAD], [4, 6, 8, 3, 5, PAD]]))
    result = _call(training_step, model, optimizer, batch, bos_token_id=BOS, pad_token_id=PAD)
    return model, before, batch, result


@_offering
def check_training_step(training_step):
    lr = 0.5
    model, before, batch, result = _spy_step(training_step, lr)
    source, source_mask, target = batch
    if len(model.calls) != 1:
        raise StudentError(f"the step called the model {len(model.calls)} times; one forward pass per step")
    training, decoder_input, mask = model.calls[0]
    if not training:
        raise StudentError("the model ran in eval mode: call model.train() in the step, so that dropout is on")
    _passed("one forward pass, in train mode")
    if torch.equal(decoder_input, target):
        raise StudentError("the decoder read the target itself: give it shift_right(target, bos_token_id)")
    if not torch.equal(decoder_input, torch.cat([torch.full((2, 1), BOS), target[:, :-1]], dim=1)):
        raise StudentError(f"the decoder read {decoder_input.tolist()}; it should read BOS + target[:, :-1]")
    if mask is None or not torch.equal(torch.as_tensor(mask), source_mask):
        raise StudentError("pass the source's mask as the model's third argument, or it attends to the padding")
    _passed("the decoder reads BOS + target[:, :-1], with the source's mask")
    reference = _Spy()
    logits = reference(source, decoder_input, source_mask)
    loss = F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=PAD)
    loss.backward()
    if isinstance(result, torch.Tensor):
        raise StudentError("return loss.item(), a float: a tensor keeps the graph of its step alive")
    if not isinstance(result, float) or abs(result - loss.item()) > 1e-5 * max(1.0, abs(loss.item())):
        padded = F.cross_entropy(logits.flatten(0, 1), target.flatten()).item()
        counted = isinstance(result, float) and abs(result - padded) <= 1e-5 * max(1.0, padded)
        raise StudentError(
            f"the step returned {result!r}; the loss on this batch is {loss.item():.4f}"
            + (": yours counts padding positions too; use your sequence_loss" if counted else "")
        )
    _passed(f"it returns the loss, padding left out ({loss.item():.4f})")
    moved = before - model.table.detach()
    gradient = reference.table.grad
    assert gradient is not None, "the reference's loss.backward() above gave its table one"
    if not moved.any():
        raise StudentError("the parameters did not move: call optimizer.step() after loss.backward()")
    if torch.allclose(moved, lr * (gradient + 100.0), atol=1e-5):
        raise StudentError(
            "the step used the gradient left over from the previous step as well as this one: call "
            "optimizer.zero_grad() before loss.backward() (backward adds to .grad)"
        )
    if not torch.allclose(moved, lr * gradient, atol=1e-5):
        raise StudentError("the parameters moved, but not by one step of the optimizer along this batch's gradient")
    _passed("fresh gradients, then one optimizer step")
    print("training_step: all checks passed")


@_offering
def check_learning_rate(learning_rate):
    peak, warmup, total = 3e-3, 4, 10
    expected = [peak * min(s / warmup, (total - s) / (total - warmup)) for s in range(1, total + 1)]
    got = [_call(learning_rate, s, peak, warmup, total) for s in range(1, total + 1)]
    for step, (want, have) in enumerate(zip(expected, got, strict=True), start=1):
        if not isinstance(have, (int, float)) or abs(have - want) > 1e-12:
            phase = "warm-up: peak * step / warmup_steps" if step <= warmup else "decay: the line down to 0"
            raise StudentError(
                f"peak {peak}, warmup_steps {warmup}, total_steps {total}: step {step} ({phase}) should be "
                f"{want:.6g}, yours is {have!r}; steps count from 1, so step 1 already learns"
            )
    _passed(f"warm-up over {warmup} steps to the peak, then down to 0 at step {total}")
    try:
        without = [_call(learning_rate, s, peak, 0, total) for s in (1, total)]
    except ZeroDivisionError as error:
        raise StudentError(
            "with warmup_steps = 0 (no warm-up) it divides by zero: take the warm-up line only "
            "while step <= warmup_steps"
        ) from error
    if abs(without[0] - peak * (total - 1) / total) > 1e-12 or without[1] != 0:
        raise StudentError(f"with no warm-up, step 1 should be {peak * (total - 1) / total:.6g}: the decay from peak")
    _passed("warmup_steps = 0: no warm-up, step 1 is the first of the line down from the peak")
    print("learning_rate: all checks passed")


@_offering
def check_overfit_one_batch(overfit_one_batch, steps=30):
    model = _Spy()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    batch = batch_of(torch.tensor([[5, 7, 9, PAD, PAD, PAD], [4, 6, 8, 3, 5, PAD]]))
    losses = _call(overfit_one_batch, model, optimizer, batch, steps, bos_token_id=BOS, pad_token_id=PAD)
    if not isinstance(losses, list) or len(losses) != steps or not all(isinstance(x, float) for x in losses):
        raise StudentError(f"return a list of the {steps} losses (floats, one per step), in order")
    if len(model.calls) != steps:
        raise StudentError(f"{steps} steps should call the model {steps} times; yours called it {len(model.calls)}")
    if any(not torch.equal(call[1], model.calls[0][1]) for call in model.calls):
        raise StudentError("the batches differ from step to step: train on the one batch you are given, every time")
    _passed(f"{steps} steps on the same batch")
    if not losses[-1] < losses[0] / 2:
        raise StudentError(f"the loss went from {losses[0]:.3f} to {losses[-1]:.3f}: on one batch it should fall fast")
    _passed(f"the loss falls, from {losses[0]:.3f} to {losses[-1]:.3f}")
    print("overfit_one_batch: all checks passed")
