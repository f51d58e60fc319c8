"""Part 10's helpers: the text its language model learns from, the characters as tokens, and the checks that
follow its exercises (a causal model, sampling, a key-value cache).

The exercises are not graded and have no SPEC name, so these checks are not the hidden suites: each tests
what its exercise promises (a property, or an equality with the student's own parts), prints a line per
check, and raises NotStarted on a stub, Failed otherwise, as the public checks do.
"""

import traceback
from typing import Any

import torch
from torch.nn import functional as F

from autograder.course import CORPUS_FOLDER, ladder
from autograder.course.public import Failed, NotStarted, config, seeded

# Four plays of Shakespeare; course/corpus/README.md says where they come from and under what terms.
CORPUS = CORPUS_FOLDER / "shakespeare.txt"
TOLERANCE: dict[str, Any] = dict(rtol=0, atol=1e-10)  # float64 throughout: what differs by more is computed differently
# Draws per sampling check: each frequency's standard error is at most 0.5 / sqrt(DRAWS) = 0.008, a fifth of
# FREQUENCY_TOLERANCE, so a correct sampler passes with any order of draws.
DRAWS, FREQUENCY_TOLERANCE = 4000, 0.04


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
    """Run (label, check) pairs, or (label, check, needed): each check returns None or what is wrong, and one with
    needed runs only where the check of that label passed, since its failure would follow from that one's. Prints
    the first failure first (what to change), then a line per check; raises Failed if any failed."""
    failures, lines, passed = [], [], set()
    for label, check, *needed in checks:
        if needed and needed[0] not in passed:
            lines.append(f'✗ {label}: not checked, as it follows from "{needed[0]}" failing: fix that first')
            failures.append(f"{label}: follows from {needed[0]}")
            continue
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
        else:
            passed.add(label)
    if failures:
        first = next(line for line in lines if line.startswith("✗"))
        # The first failure names its cause (a (B, 1) draw, say); the ladder's hint follows it.
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


# --- sampling -------------------------------------------------------------------------------------------------


def expected_probabilities(logits, temperature, top_k=None):
    """softmax(logits / temperature) over each row's top_k largest logits, 0 elsewhere: what a sampler draws."""
    scaled = logits / temperature
    if top_k is not None:
        scaled = scaled.masked_fill(scaled < scaled.topk(top_k, dim=-1).values[..., -1:], float("-inf"))
    return F.softmax(scaled, dim=-1)


ONE_PER_ROW = "one token id per row"  # what the other sampling checks read their draws as


def check_sampling(sample_next):
    """One LongTensor token per row; top_k=1 is the arg-max; frequencies follow softmax(logits / temperature)
    over the top k; the generator makes draws repeat."""
    logits = torch.randn(50, 20, generator=_generator(1), dtype=torch.float64)
    row = torch.tensor([[2.0, 1.0, 0.0, -1.0, 0.5]], dtype=torch.float64)

    def shape():
        drawn = sample_next(logits, 1.0, None, _generator())
        if drawn.shape == (50, 1):
            return "returned (50, 1), a column: each row's draw is still in a dimension of its own; one token id per row is (50,)"
        if drawn.shape != (50,) or drawn.dtype != torch.long:
            return f"returned {tuple(drawn.shape)} {drawn.dtype}, expected (50,) torch.int64: one token id per row"
        return None

    def greedy():
        for temperature in (0.5, 1.0, 2.0):
            drawn = sample_next(logits, temperature, 1, _generator())
            if not torch.equal(drawn, logits.argmax(-1)):
                return f"at temperature {temperature}, top_k=1 did not give the arg-max of every row"
        return None

    def frequencies(temperature, top_k):
        def check():
            drawn = sample_next(row.expand(DRAWS, -1), temperature, top_k, _generator(2))
            seen = torch.bincount(drawn, minlength=row.size(1)).double() / DRAWS
            expected = expected_probabilities(row, temperature, top_k)[0]
            if ((seen - expected).abs() > FREQUENCY_TOLERANCE).any() or (seen[expected == 0] > 0).any():
                return f"drew frequencies {[round(f, 3) for f in seen.tolist()]}, expected {[round(p, 3) for p in expected.tolist()]}"
            return None

        return check

    def repeats():
        if not torch.equal(sample_next(logits, 1.0, 5, _generator(3)), sample_next(logits, 1.0, 5, _generator(3))):
            return "the same generator seed gave different tokens: pass generator to torch.multinomial"
        return None

    run_checks(
        "sample_next",
        [
            (ONE_PER_ROW, shape),
            ("top_k=1 is the arg-max", greedy, ONE_PER_ROW),
            ("frequencies at temperature 1", frequencies(1.0, None), ONE_PER_ROW),
            ("frequencies at temperature 0.5 (sharper)", frequencies(0.5, None), ONE_PER_ROW),
            ("frequencies at temperature 2 with top_k=3 (flatter, three tokens)", frequencies(2.0, 3), ONE_PER_ROW),
            ("the generator makes draws repeat", repeats),
        ],
    )


# --- the key-value cache --------------------------------------------------------------------------------------


def check_kv_cache(attend_with_cache, MultiHeadAttention):
    """A prompt of 3 positions, then one position at a time: each output equals your MultiHeadAttention's on
    the whole sequence with a causal mask, and the cache holds the projected keys and values of every position."""
    cfg = config()
    attention = seeded(MultiHeadAttention, cfg)
    B, T, D, H = 2, 6, cfg.hidden_size, cfg.num_attention_heads
    x = torch.randn(B, T, D, generator=_generator(4), dtype=torch.float64)
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    cache: dict[str, torch.Tensor] = {}
    steps: dict[str, torch.Tensor] = {}

    def run():
        if not steps:
            with torch.no_grad():
                steps["full"] = attention(x, mask)[0]
                steps["prompt"] = attend_with_cache(attention, x[:, :3], cache)
                steps["one at a time"] = torch.cat(
                    [attend_with_cache(attention, x[:, t : t + 1], cache) for t in range(3, T)], 1
                )
        return steps

    def holds(name):
        def check():
            run()
            projected = getattr(attention, name)(x).view(B, T, H, D // H).transpose(1, 2)
            if name not in cache:
                return f'the cache has no "{name}" after the calls'
            return _differs(cache[name].detach(), projected.detach())

        return check

    run_checks(
        "attend_with_cache",
        [
            ("a 3-position prompt: its outputs", lambda: _differs(run()["prompt"], run()["full"][:, :3])),
            ("then one position at a time", lambda: _differs(run()["one at a time"], run()["full"][:, 3:])),
            ('cache["key"] is every position\'s key, heads split: (B, H, T, Dh)', holds("key")),
            ('cache["value"] is every position\'s value, heads split', holds("value")),
        ],
    )
