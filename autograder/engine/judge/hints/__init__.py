"""Every sentence a student reads about their own code, one table per kind, each by component and topic:

- the hint under a failing output, "Hint: ..." (failures.py: HINTS; a component's topics read from
  generated/failure_hints.json, each written in engine/authoring/failure_hints.py), and under a failing step of the notebooks
  (step(), from generated/step_hints.json: each is written in its step's entry, engine/authoring/steps/, and `python -m autograder
  generate --part sentences` copies the hints alone here);
- the likely mistake the diagnosis names, by the catalog's id of the mistake (likely(), from generated/mistake_sentences.json): each
  is written in its catalog entry (engine/authoring/mistakes/<component>.py), with its edits of the reference, which
  never ship; `python -m autograder generate --part sentences` copies the sentences alone into that table, and
  the evidence names a mistake by its id, so that rewording one rebuilds no evidence;
- why a component scores 0, and why code may not delegate its subject (engine/contract/reasons.py: ZERO,
  DELEGATION, re-exported here): in the contract, because the child raises some of them and imports nothing of
  the judge's.

tests/support/hint_evidence.py holds every sentence of these tables to its evidence, or to the code and test that say it;
tests/unit/test_steps.py holds each step's hint to its wrong version.
"""

import functools
import json

from autograder.engine.contract.reasons import DELEGATION, ZERO
from autograder.engine.contract.spec import GENERATED
from autograder.engine.judge.hints.failures import FAILURE_HINTS, HINT, HINTS

__all__ = ["DELEGATION", "FAILURE_HINTS", "HINT", "HINTS", "MISTAKE_SENTENCES", "STEP_HINTS", "ZERO", "likely", "step"]

MISTAKE_SENTENCES = GENERATED / "mistake_sentences.json"
STEP_HINTS = GENERATED / "step_hints.json"


@functools.cache
def _likely() -> dict[str, str]:
    sentences: dict[str, str] = json.loads(MISTAKE_SENTENCES.read_text())
    return sentences


def likely(mistake_id: str) -> str:
    """What the student reads after "Likely mistake: " for the cataloged mistake with this id."""
    return _likely()[mistake_id]


@functools.cache
def _steps() -> dict[str, str]:
    hints: dict[str, str] = json.loads(STEP_HINTS.read_text())
    return hints


def step(name: str) -> str | None:
    """The hint under a failing check of the notebooks' step name, or None for no step of the course."""
    return _steps().get(name)
