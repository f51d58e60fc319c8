"""Part 10's helpers: the text its language model learns from, the characters as tokens, and the checks that
follow its ungraded exercises, the causal model and the loop that writes with it.

CharLM and generate have no SPEC name, so their checks are no hidden suite: each tests what the exercise promises
(properties of the student's model, or of the student's loop run on it), prints a line per check, and raises NotStarted on a stub, Failed otherwise, as the public checks
do. The part's graded exercises (sampling, the cache, beam search) are checked by check_generation.
"""

import functools
import traceback
from typing import Any

import torch

from autograder.course import CORPUS_FOLDER, ladder
from autograder.course.public import Failed, NotStarted, config, seeded

# Four plays of Shakespeare; course/corpus/README.md says where they come from and under what terms.
CORPUS = CORPUS_FOLDER / "shakespeare.txt"
TOLERANCE: dict[str, Any] = dict(rtol=0, atol=1e-10)  # float64 throughout: what differs by more is computed differently


def corpus():
    return CORPUS.read_text()


class Characters:
    """A character-level tokenizer: each distinct character of a text is a token, numbered in sorted order."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {char: i for i, char in enumerate(self.chars)}

    def __len__(self):
        return len(self.chars)

    def encode(self, text):
        return torch.tensor([self.index[char] for char in text], dtype=torch.long)

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids.tolist())


def run_checks(name, checks):
    """Run (label, check) pairs: each check returns None or what is wrong. Prints the first failure first (what to
    change), then a line per check; raises Failed if any failed."""
    failures, lines = [], []
    for label, check in checks:
        try:
            problem = check()
        except NotImplementedError as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            raise NotStarted(
                f"{name} cannot run yet: {frame.filename}, line {frame.lineno} raises NotImplementedError"
            ) from error
        except Exception as error:  # noqa: BLE001 - a student's exception is a failed check, told as such
            problem = f"raised {type(error).__name__}: {error}"
        lines.append(f"✗ {label}: {problem}" if problem else f"✓ {label}")
        if problem:
            failures.append(f"{label}: {problem}")
    if failures:
        first = next(line for line in lines if line.startswith("✗"))
        # The first failure names its cause; the ladder's hint follows it.
        offered = ladder.offer((name,))
        told = "\n".join([first, *([offered] if offered else []), *(line for line in lines if line is not first)])
        failure = Failed(name, len(checks) - len(failures), failures, told=told)
        print(failure)
        failure.printed = True
        raise failure
    print("\n".join(lines) + f"\n{name}: all {len(checks)} checks passed")


def _generator(seed=0):
    return torch.Generator().manual_seed(seed)


def _differs(a, b):
    """Where two tensors that should be equal are not: None, or the greatest difference and where it is."""
    if a.shape != b.shape:
        return f"shape {tuple(a.shape)}, expected {tuple(b.shape)}"
    if torch.allclose(a, b, **TOLERANCE):
        return None
    difference = (a - b).abs()
    where = tuple(int(i) for i in torch.unravel_index(difference.argmax(), a.shape))
    return f"differs by up to {difference.max().item():.3g} (at {where})"


# --- the model ------------------------------------------------------------------------------------------------


def check_char_lm(CharLM):
    """Logits (B, T, V); row t depends on tokens 0..t and on nothing after t; every layer is used."""
    cfg = config(vocab_size=11, max_position_embeddings=12)
    model = seeded(CharLM, cfg)
    ids = torch.randint(0, 11, (2, 7), generator=_generator())
    later, first = ids.clone(), ids.clone()
    later[:, 4] = (later[:, 4] + 1) % 11
    first[:, 0] = (first[:, 0] + 1) % 11

    def logits(input_ids):
        with torch.no_grad():
            return model(input_ids)

    def every_layer_counts():
        before = logits(ids)
        for index, layer in enumerate(model.layers):
            with torch.no_grad():
                layer.output_norm.bias += 1
            moved = not torch.allclose(logits(ids), before, **TOLERANCE)
            with torch.no_grad():
                layer.output_norm.bias -= 1
            if not moved:
                return f"changing layer {index}'s weights does not change the logits: is every layer applied?"
        return None

    run_checks(
        "CharLM",
        [
            (
                "logits are (B, T, V)",
                lambda: None if logits(ids).shape == (2, 7, 11) else f"{tuple(logits(ids).shape)}, expected (2, 7, 11)",
            ),
            (
                "positions before t do not see token t (the causal mask)",
                lambda: _differs(logits(later)[:, :4], logits(ids)[:, :4]),
            ),
            (
                "the last position sees the first token",
                lambda: (
                    "the last row does not change when token 0 does"
                    if torch.allclose(logits(first)[:, -1], logits(ids)[:, -1], **TOLERANCE)
                    else None
                ),
            ),
            ("every layer is applied", every_layer_counts),
        ],
    )


# --- the loop that writes -------------------------------------------------------------------------------------

# The check's model: the student's CharLM, seeded, with room for a loop that feeds its cache the whole sequence at
# every step (3 + 4 + ... + 7 = 25 positions), so that such a loop is told apart by what it runs, not by a crash.
PROMPT, NEW_TOKENS, POSITIONS = 3, 5, 32
SAMPLING: dict[str, Any] = dict(temperature=1.5, top_k=6, top_p=0.95)


class _Writing:
    """The student's generate run on the student's seeded CharLM, each run's calls of the LM head recorded (both
    paths end with it): (rows scored, train mode, gradients on)."""

    def __init__(self, generate, sample_next, CharLM):  # noqa: N803 - the class, as the notebook names it
        self.generate = generate
        self.model = seeded(CharLM, config(vocab_size=11, max_position_embeddings=POSITIONS))
        self.prompt = torch.randint(0, 11, (2, PROMPT), generator=_generator())
        self.runs: list[tuple[int, bool, bool]] = []
        self.model.lm_head.register_forward_hook(
            lambda module, args, output: self.runs.append(
                (output.size(1), self.model.training, torch.is_grad_enabled())
            )
        )
        self.sample_next = sample_next

    def written(self, new_tokens=NEW_TOKENS, **kwargs):
        """generate from train mode; the global generator seeded, so that a loop which draws from it rather than
        from the generator it was given draws the same wrong tokens every time."""
        self.runs.clear()
        self.model.train()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(1234)
            return self.generate(self.model, self.prompt, new_tokens, **kwargs)

    @functools.cached_property
    def expected(self):
        """What N seeded calls of sample_next draw, in eval mode: computed when first asked for, inside the check
        (a sample_next still unwritten is then told as such)."""
        expected = self.prompt
        self.model.eval()
        with torch.no_grad():
            generator = _generator(7)
            for _ in range(NEW_TOKENS):
                drawn = self.sample_next(self.model(expected)[:, -1], **SAMPLING, generator=generator)
                expected = torch.cat([expected, drawn[:, None]], dim=1)
        return expected

    def sampled(self):
        return self.written(**SAMPLING, generator=_generator(7))

    def dropout_on(self):
        return any(training for _, training, _ in self.runs)

    def shape(self):
        try:
            result = self.sampled()
        except Exception as error:  # noqa: BLE001 - a loop that grows too fast runs past the positions: say how fast
            scored = [rows for rows, _, _ in self.runs]
            return f"raised {type(error).__name__} once the model had scored {scored} positions: a step appends one token a row"
        expected = (2, PROMPT + NEW_TOKENS)
        return None if tuple(result.shape) == expected else f"{tuple(result.shape)}, expected {expected}"

    def prompt_kept(self):
        result = self.sampled()
        if result.size(1) < PROMPT or not torch.equal(result[:, :PROMPT], self.prompt):
            return "the result does not start with the prompt: return the prompt followed by the tokens drawn"
        return None

    def eval_without_gradients(self):
        self.sampled()
        if self.dropout_on():
            return "the model was in train mode while it wrote: its dropout was on (writing is done in eval mode)"
        if any(gradients for _, _, gradients in self.runs):
            return "gradients were recorded while it wrote: nothing it computes here is trained on"
        return None

    def seeded_draws(self):
        result = self.sampled()
        if result.shape == self.expected.shape and torch.equal(result, self.expected):
            return None
        if self.dropout_on():
            return "the tokens differ from those of N seeded calls of sample_next: the model wrote with its dropout on"
        return (
            "with a seeded generator the tokens are not those that sample_next draws step by step from the last "
            "row of the logits: pass it the temperature, top_k, top_p and the generator you were given, at every step"
        )

    def cached_like_uncached(self):
        uncached = self.written(top_k=1)
        cached = self.written(top_k=1, cached=True)
        rows = [rows for rows, _, _ in self.runs]
        if rows != [PROMPT] + [1] * (NEW_TOKENS - 1):
            return (
                f"with the cache the model scored {rows} positions at its steps, expected {PROMPT} (the prompt) "
                f"then 1 a step: after the prompt, only the token just drawn goes through next_logits"
            )
        if torch.equal(cached, uncached):
            return None
        if self.dropout_on():
            return "the greedy text (top_k=1) differs with and without the cache: the model wrote with its dropout on"
        return (
            "the greedy text (top_k=1) differs with and without the cache: if the logits printed above differ too, "
            "the cache is the cause"
        )

    def position_limit(self):
        too_many = POSITIONS - PROMPT + 1
        try:
            self.written(too_many)
        except ValueError:
            return None if not self.runs else "the ValueError came after the model had run: check the length first"
        except Exception as error:  # noqa: BLE001 - what the model raised past its positions, told as such
            return f"the model itself raised {type(error).__name__} past its positions: check the length first"
        return f"{PROMPT} + {too_many} tokens, past the model's {POSITIONS} positions, raised no ValueError"


def check_generate(generate, sample_next, CharLM):  # noqa: N803 - the class, as the notebook names it
    """The prompt kept and N tokens appended, (B, P + N); eval mode and no gradients while it writes; the tokens N
    seeded calls of sample_next draw; the cache run on the prompt and then one token a step, writing the uncached
    greedy text; the position limit refused before anything runs."""
    writing = _Writing(generate, sample_next, CharLM)
    run_checks(
        "generate",
        [
            (f"the result is (B, P + N): the prompt's {PROMPT} tokens and {NEW_TOKENS} new ones", writing.shape),
            ("the prompt is kept", writing.prompt_kept),
            ("it writes in eval mode, without gradients", writing.eval_without_gradients),
            ("a seeded generator draws the tokens of N seeded calls of sample_next", writing.seeded_draws),
            (
                "the cached path runs one new token a step and writes the uncached greedy text",
                writing.cached_like_uncached,
            ),
            ("more tokens than the model's positions raise a ValueError", writing.position_limit),
        ],
    )
