"""Part 10's helpers: the text its language model learns from, the characters as tokens, and the check that
follows its ungraded exercise, the causal model.

CharLM has no SPEC name, so its check is no hidden suite: it tests what the exercise promises (properties of the
student's model), prints a line per check, and raises NotStarted on a stub, Failed otherwise, as the public checks
do. The part's graded exercises (sampling, the cache, beam search) are checked by check_generation.
"""

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
