"""The catalog of common mistakes: each a small edit of the reference, with a sentence for the student.

One source for three things: the fixture builder computes each mistake's outputs (and those of every pair
of mistakes in one component) on the hidden cases and on the public checks' (build/evidence.py); the grader
and the public checks name a mistake whose outputs a student's match (diagnosis.py); and the kit's tests grade
every mistake to measure that it loses points and is named (tests/unit/test_mutations.py).

One module per component holds its MISTAKES; mistake.py says what a mistake is. An edit is (old text, new
text) in the mistake's own component's file; each old text occurs there exactly once. `says` is what the
student reads after "Likely mistake: ": what they did, then what to do instead; it is read by the entry's name
from judge/hints/mistakes.py, beside the other sentences students read. The catalog is the
instructors': it quotes the reference, so it never ships to students (bundle.py).
"""

from autograder.engine.build.mistakes import (
    attention,
    decoder,
    embeddings,
    encoder,
    feedforward,
    heads,
    layernorm,
    masking,
    multihead,
    seq2seq,
)
from autograder.engine.build.mistakes.mistake import Mistake, apply
from autograder.engine.contract import spec

__all__ = ["BY_ID", "CATALOG", "Mistake", "apply", "of"]

CATALOG = [
    mistake
    for module in (attention, masking, layernorm, feedforward, multihead, embeddings, encoder, decoder, heads, seq2seq)
    for mistake in module.MISTAKES
]

BY_ID = {mistake.id: mistake for mistake in CATALOG}


def of(component):
    return [mistake for mistake in CATALOG if mistake.component == component]


def _check():
    ids = [mistake.id for mistake in CATALOG]
    if len(ids) != len(set(ids)):
        raise ValueError("two mistakes share an id")
    unknown = {mistake.component for mistake in CATALOG} - set(spec.BY_ID)
    if unknown:
        raise ValueError(f"mistakes of unknown components: {sorted(unknown)}")


_check()
