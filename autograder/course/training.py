"""Part 9's task and the checks of its exercises outside the SPEC (course/exercises/training_loop.py holds their
reference; the graded ones, solutions/training.py's, are checked by check_training, the component's public checks).

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
from autograder.course.public import NotStarted, config
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


class _Recorder(_Spy):
    """The spy, recording too the learning rate of each forward pass and the table before it."""

    def __init__(self, optimizer_of):
        super().__init__()
        self.optimizer_of = optimizer_of  # the optimizer, once made over this spy's table
        self.rates, self.tables, self.logits = [], [], []

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        self.rates.append(self.optimizer_of().param_groups[0]["lr"])
        self.tables.append(self.table.detach().clone())
        logits = super().forward(input_ids, decoder_input_ids, attention_mask, decoder_attention_mask)
        self.logits.append(logits.detach())
        return logits


# Two rows, padded: each step's batch has its digits moved on by one, so that every step's batch is its own.
LOOP_SOURCE = torch.tensor([[5, 7, 9, PAD, PAD, PAD], [4, 6, 8, 3, 5, PAD]])


STEPS, PEAK, WARMUP, EVERY, MAX_NORM = 12, 0.5, 3, 4, 0.01  # the loop's run on the spy


@_offering
def check_train(train, learning_rate):
    """The loop, on the spy, against the student's own learning_rate (whose values its graded checks hold)."""
    optimizer = None
    model = _Recorder(lambda: optimizer)
    optimizer = torch.optim.SGD(model.parameters(), lr=123.0)
    # More batches than steps, so that a loop that takes too many is told so by what it trained on.
    sources = [torch.where(LOOP_SOURCE == PAD, PAD, (LOOP_SOURCE - DIGIT + i) % 10 + DIGIT) for i in range(2 * STEPS)]
    batches = [batch_of(source) for source in sources]
    validated = []

    def validate(validated_model):
        validated.append((validated_model is model, len(model.rates)))
        return float(len(validated))

    settings = {"steps": STEPS, "peak": PEAK, "warmup_steps": WARMUP, "every": EVERY, "max_norm": MAX_NORM}
    run = _call(train, model, optimizer, iter(batches), validate, bos_token_id=BOS, pad_token_id=PAD, **settings)
    reported = list(run)
    if len(model.rates) != STEPS:
        raise StudentError(f"{STEPS} steps should call the model {STEPS} times; yours called it {len(model.rates)}")
    _check_steps(model, batches, learning_rate)
    _check_reports(model, batches, reported, validated)
    moved = [float((after - before).norm()) for before, after in zip(model.tables, model.tables[1:])]
    if any(size > rate * MAX_NORM * (1 + 1e-4) for size, rate in zip(moved, model.rates)):
        raise StudentError("a step moved the weights more than the learning rate times max_norm: pass max_norm on")
    _passed(f"the gradients clipped to max_norm {MAX_NORM}")
    print("train: all checks passed")


def _check_steps(model, batches, learning_rate):
    """Each step at its rate, set before it, on the next batch."""
    for step, rate in enumerate(model.rates, start=1):
        want = learning_rate(step, PEAK, WARMUP, STEPS)
        if abs(rate - want) > 1e-12:
            raise StudentError(
                f"step {step} ran at learning rate {rate!r}; your learning_rate({step}, {PEAK}, {WARMUP}, {STEPS}) is "
                f"{want:.6g}: set every group's lr before the step, steps counted from 1"
            )
    _passed(f"each of the {STEPS} steps at its scheduled rate, set before the step")
    for step, (call, (_, _, target)) in enumerate(zip(model.calls, batches), start=1):
        if not torch.equal(call[1][:, 1:], target[:, :-1]):
            raise StudentError(
                f"step {step} did not train on the iterator's batch {step}: take next(batches) once a step"
            )
    _passed("each step on the next batch")


def _check_reports(model, batches, reported, validated):
    """What the loop yields: after every EVERY steps, the step, the mean of their losses, and a validation then."""
    losses = [
        F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=PAD).item()
        for logits, (_, _, target) in zip(model.logits, batches)
    ]
    marks = list(range(EVERY, STEPS + 1, EVERY))
    if [r[0] if isinstance(r, tuple) and len(r) == 3 else r for r in reported] != marks:
        raise StudentError(f"yield (step, training loss, validation loss) after steps {marks}, and only then")
    for number, (step, mean, validation) in enumerate(reported, start=1):
        want = sum(losses[step - EVERY : step]) / EVERY
        if not isinstance(mean, float) or abs(mean - want) > 1e-5:
            raise StudentError(
                f"after step {step} the training loss to report is the mean of the last {EVERY} steps' losses, "
                f"{want:.4f}; yours is {mean!r}"
            )
        if validation != float(number) or validated[number - 1] != (True, step):
            raise StudentError(f"call validate(model) once after each {EVERY} steps, after the step, and yield it")
    _passed(f"every {EVERY} steps: the step, the mean of its last {EVERY} losses, validate(model)")


@_offering
def check_pre_ln(PreLNEncoderLayer, PreLNDecoderLayer):  # noqa: N803 - the classes, as the notebook names them
    """Each pre-LN layer in eval mode, on a small case, against its own sub-blocks composed pre-LN."""
    cfg = config(hidden_size=8, num_attention_heads=2, intermediate_size=16, vocab_size=VOCAB_SIZE)
    torch.manual_seed(0)
    x, memory = torch.randn(2, 3, 8), torch.randn(2, 4, 8)
    encoder = _call(PreLNEncoderLayer, cfg).eval()
    decoder = _call(PreLNDecoderLayer, cfg).eval()
    with torch.no_grad():
        h = x + encoder.attention(encoder.attention_norm(x))[0]
        want = h + encoder.feed_forward(encoder.output_norm(h))
        got = _call(encoder, x)
        if not torch.allclose(got, want, atol=1e-5):
            raise StudentError(
                "the pre-LN encoder layer is not x + attention(attention_norm(x)), then h + "
                "feed_forward(output_norm(h)): each norm goes in front of its sub-block, none after the sum"
            )
        _passed("the encoder layer: each sub-block reads its norm, and adds to what it read from")
        h = x + decoder.self_attention(decoder.self_attention_norm(x))[0]
        h = h + decoder.cross_attention(decoder.cross_attention_norm(h), key_value_states=memory)[0]
        want = h + decoder.feed_forward(decoder.output_norm(h))
        if not torch.allclose(_call(decoder, x, memory), want, atol=1e-5):
            raise StudentError(
                "the pre-LN decoder layer: self-attention on self_attention_norm(x), cross-attention on "
                "cross_attention_norm(h) to the encoder's states, feed-forward on output_norm(h), each added to its input"
            )
    _passed("the decoder layer: the same, with cross-attention between")
    print("pre-LN layers: all checks passed")
