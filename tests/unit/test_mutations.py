"""Every cataloged mistake, and every other member of its family, loses points in its own component, and the
feedback names it.

Each is graded by its component's hidden suites in this process (helpers.graded_here): the cases, checks, hints
and diagnosis of a jailed grading, on the same numbers; tests/system/test_mutations.py grades one mistake of each
component in the jail and holds it to this word for word.

Recall: each mistake, graded, is named by its own sentence, and every one but those that leave no
evidence (they raise wherever they are wrong) has evidence; at least 95% of the catalog is named.
Precision: no graded mistake is given another's name, no mistake outside the catalog is named, and the
correct styles of tests/system/test_variants.py get no "Likely mistake:" line (checked there, on their class
grading).

Each mistake is graded in its own component only: that the others keep full marks whatever this file holds
is isolation's promise, tested in tests/system/test_isolation.py, and in tests/system/test_mutations.py by the
variants, whose additions the other components use.
"""

import numpy as np
import pytest
from support import mutations
from support.helpers import graded_here, submission
from support.hint_evidence import check_hints
from support.mutations import OUTSIDE, TRAINING_OUTSIDE, TRAINING_VARIANTS, VARIANTS

from autograder.engine.authoring import evidence, mistakes
from autograder.engine.contract import spec
from autograder.engine.judge import fixtures
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

RECALL_GOAL = 0.95

# (mistake, entry id, edits) of every member of every family: a mistake as written, then its variants.
MEMBERS = [(mistake, entry, edits) for mistake in mistakes.CATALOG for entry, edits in mistake.members()]


def named(mistake):
    """Whether the evidence holds the mistake (the builder leaves out one that no outputs could name)."""
    return mistake.id in fixtures.evidence_of(mistake.component).entries


def test_catalog_has_sixty_mistakes_across_every_component():
    assert len(mistakes.CATALOG) >= 60
    assert {m.component for m in mistakes.CATALOG} == {c.id for c in spec.COMPONENTS}


def test_recall_of_the_catalog_is_at_least_the_goal():
    recall = sum(map(named, mistakes.CATALOG)) / len(mistakes.CATALOG)
    assert recall >= RECALL_GOAL, f"only {recall:.1%} of the cataloged mistakes can be named"


@pytest.mark.parametrize("mistake, entry, edits", MEMBERS, ids=[entry for _, entry, _ in MEMBERS])
def test_mistake_loses_points_and_is_named(mistake, entry, edits):
    """A variant is named by its family's sentence: by its own evidence, or by the family's where the builder left
    its own out as returning what the family already does."""
    own = graded_here(mistake.component, edits)
    assert own.score < own.points, f"'{entry}' kept full marks in {mistake.component}"
    feedback = own.feedback()
    check_hints(entry, feedback)
    if named(mistake) or entry in fixtures.evidence_of(mistake.component).entries:
        assert own.diagnosis == LIKELY_MISTAKE + mistake.says, feedback
        assert feedback.splitlines()[1] == own.diagnosis
    else:
        assert own.diagnosis is None and LIKELY_MISTAKE not in feedback, feedback


def _first_pair(component):
    return next(
        entry_id for entry_id, entry in fixtures.evidence_of(component).entries.items() if len(entry["parts"]) == 2
    )


@pytest.mark.parametrize("component", [c.id for c in spec.COMPONENTS])
def test_two_mistakes_in_one_component_are_named_together(component):
    pair = _first_pair(component)
    both = [mistakes.BY_ID[part] for part in pair.split("+")]
    own = graded_here(component, both[0].edits + both[1].edits)
    assert own.diagnosis == fixtures.evidence_of(component).line(pair)
    assert all(m.says in own.diagnosis for m in both)


@pytest.mark.parametrize("component, mistake, edits", [pytest.param(*o, id=f"{o[0]}-{o[1]}") for o in OUTSIDE])
def test_mistake_outside_the_catalog_is_not_named(component, mistake, edits):
    own = graded_here(component, edits)
    check_hints(f"outside:{component}:{mistake}", own.feedback())
    assert own.score < own.points, f"'{mistake}' kept full marks"
    assert own.diagnosis is None, own.feedback()


def test_evidence_keeps_a_farthest_element_only_where_rounding_did_not_choose_it():
    """Fixtures are built on one CPU and checked for drift on another: an index that float32 rounding picked
    (a GELU computed in float32) would differ between them, so none is kept; a real deviation keeps its own."""
    expected = np.random.default_rng(0).standard_normal(1000)
    assert evidence._farthest(expected.astype(np.float32).astype(np.float64), expected, "feedforward") is None
    off = expected.copy()
    off[417] += 0.1
    assert evidence._farthest(off, expected, "feedforward") == 417
    off[3] = np.nan
    assert evidence._farthest(off, expected, "feedforward") == 3


def test_every_edit_of_the_mutations_applies_once_to_the_code_it_means(tmp_path):
    """What the jailed gradings of tests/system/test_mutations.py would find one at a time, in a moment: each edit
    of mutations.py's tables (reference text, as the catalog's are) is once in its component's graded code or
    imports."""
    tables = [
        *(mutations.variant_edits(mistakes.BY_ID[shows].component, edits) for shows, _, edits in VARIANTS),
        *(mutations.variant_edits(component, edits) for component, _, edits in OUTSIDE),
        *(
            [e for component, _, edits in group for e in mutations.variant_edits(component, edits)]
            for group in TRAINING_OUTSIDE
        ),
        TRAINING_VARIANTS,
    ]
    for number, edits in enumerate(tables):
        submission(tmp_path / str(number), edits)
