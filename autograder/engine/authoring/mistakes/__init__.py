"""The catalog of common mistakes: each a small edit of the reference, with a sentence for the student.

One source for three things: the fixture builder computes each mistake's outputs (and those of every pair
of mistakes in one component) on the hidden cases and on the public checks' (authoring/evidence.py); the grader
and the public checks name a mistake whose outputs a student's match (diagnosis.py); and the kit's tests grade
every mistake to measure that it loses points and is named (tests/system/test_mutations.py).

One module per component holds its MISTAKES, each entry whole: its name, the sentence the student reads after
"Likely mistake: " (what they did, then what to do instead), its edits and its family's variants; mistake.py
says what an entry is. An edit is (old text, new text) in the mistake's own component's file; each old text
occurs there exactly once. The catalog is the instructors': it quotes the reference, so it never ships to
students (bundle.py). What ships is sentences(), the sentences alone by the mistake's id
(generated/mistake_sentences.json, which `python -m autograder generate --part sentences` writes).
"""

import importlib
import importlib.util
import json

from autograder.engine.authoring.mistakes.mistake import Mistake, apply
from autograder.engine.contract import spec

__all__ = ["BY_ID", "CATALOG", "Mistake", "apply", "of", "sentences"]

# Every graded component's: the core's, and each extension's once its hidden suite (on whose cases the evidence is
# built) exists.
CATALOG = [
    mistake
    for component in spec.ALL_COMPONENTS
    if spec.has_suite(component)
    for mistake in importlib.import_module(f"{__name__}.{component.id}").MISTAKES
]

BY_ID = {mistake.id: mistake for mistake in CATALOG}


def of(component):
    return [mistake for mistake in CATALOG if mistake.component == component]


def sentences():
    """The text of generated/mistake_sentences.json: {mistake id: its sentence}, in the catalog's order."""
    return json.dumps({mistake.id: mistake.says for mistake in CATALOG}, indent=1, ensure_ascii=False) + "\n"


def _check():
    ids = [mistake.id for mistake in CATALOG]
    if len(ids) != len(set(ids)):
        raise ValueError("two mistakes share an id")
    wrong = [mistake.id for mistake in CATALOG if mistake.component != mistake.id.split("/")[0]]
    if wrong:
        raise ValueError(f"mistakes in another component's module: {wrong}")


_check()
