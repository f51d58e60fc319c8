"""Every cataloged mistake loses points in its own component, and the feedback names it.

Recall: each mistake, graded, is named by its own sentence, and every one but those that leave no
evidence (they raise wherever they are wrong) has evidence; at least 95% of the catalog is named.
Precision: no graded mistake is given another's name, no mistake outside the catalog is named, and the
correct styles of test_variants.py get no "Likely mistake:" line (checked there, on their class grading).

Each mistake is graded in its own component only: that the others keep full marks whatever this file holds
is isolation's promise, tested in test_isolation.py, and here by the variants, whose additions the other
components use.
"""

import mutations
import numpy as np
import pytest
from helpers import full_marks_except, scores, submission
from hint_evidence import check_hints
from mutations import OUTSIDE, TRAINING_OUTSIDE, TRAINING_VARIANTS, VARIANTS

from autograder.engine.build import evidence, mistakes
from autograder.engine.contract import spec
from autograder.engine.judge import fixtures
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

RECALL_GOAL = 0.95


def named(mistake):
    """Whether the evidence holds the mistake (the builder leaves out one that no outputs could name)."""
    return mistake.id in fixtures.evidence_of(mistake.component).entries


def graded(tmp_path, sandbox, component, edits, everything=False):
    path = submission(tmp_path / "mutant", edits)
    results, _ = scores(path, sandbox=sandbox, components=None if everything else [component])
    return results


def test_catalog_has_sixty_mistakes_across_every_component():
    assert len(mistakes.CATALOG) >= 60
    assert {m.component for m in mistakes.CATALOG} == {c.id for c in spec.COMPONENTS}


def test_recall_of_the_catalog_is_at_least_the_goal():
    recall = sum(map(named, mistakes.CATALOG)) / len(mistakes.CATALOG)
    assert recall >= RECALL_GOAL, f"only {recall:.1%} of the cataloged mistakes can be named"


@pytest.mark.parametrize("mistake", mistakes.CATALOG, ids=lambda m: m.id)
def test_mistake_loses_points_and_is_named(tmp_path, sandbox, mistake):
    own = graded(tmp_path, sandbox, mistake.component, mutations.edits(mistake))[mistake.component]
    assert own.score < own.points, f"'{mistake.name}' kept full marks in {mistake.component}"
    feedback = own.feedback()
    check_hints(mistake.id, feedback)
    if named(mistake):
        assert own.diagnosis == LIKELY_MISTAKE + mistake.says, feedback
        assert feedback.splitlines()[1] == own.diagnosis
    else:
        assert own.diagnosis is None and LIKELY_MISTAKE not in feedback, feedback


def _first_pair(component):
    return next(
        entry_id for entry_id, entry in fixtures.evidence_of(component).entries.items() if len(entry["parts"]) == 2
    )


def test_every_edit_of_the_mutations_applies_once_to_the_code_it_means(tmp_path):
    """What the gradings below would find one jailed grading at a time, in a moment: each edit of mutations.py's
    tables (reference text, as the catalog's are) is once in its component's graded code or imports."""
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


@pytest.mark.parametrize("component", [c.id for c in spec.COMPONENTS])
def test_two_mistakes_in_one_component_are_named_together(tmp_path, sandbox, component):
    pair = _first_pair(component)
    both = [mistakes.BY_ID[part] for part in pair.split("+")]
    own = graded(tmp_path, sandbox, component, mutations.edits(both[0]) + mutations.edits(both[1]))[component]
    assert own.diagnosis == fixtures.evidence_of(component).line(pair)
    assert all(m.says in own.diagnosis for m in both)


@pytest.mark.parametrize("shows, written, edits", [pytest.param(*v, id=f"{v[0]}-{v[1]}") for v in VARIANTS])
def test_variant_loses_points_only_in_its_component_and_is_named(tmp_path, sandbox, shows, written, edits):
    mistake = mistakes.BY_ID[shows]
    changes = mutations.variant_edits(mistake.component, edits)
    elsewhere = any(change[0] != mistake.component for change in changes)
    results = graded(tmp_path, sandbox, mistake.component, changes, everything=elsewhere)
    own = results[mistake.component]
    assert own.score < own.points
    assert own.diagnosis == LIKELY_MISTAKE + mistake.says, own.feedback()
    assert full_marks_except(results, mistake.component) == []


@pytest.mark.parametrize("group", TRAINING_OUTSIDE, ids=lambda g: "+".join(c for c, _, _ in g))
def test_training_mistakes_outside_the_catalog_lose_points_in_train_mode_and_only_in_their_components(
    tmp_path, sandbox, group
):
    """Each of these passes every eval-mode test: only the train-mode outputs and gradients show it."""
    results = graded(
        tmp_path,
        sandbox,
        None,
        [edit for component, _, edits in group for edit in mutations.variant_edits(component, edits)],
        everything=True,
    )
    for component, mistake, _ in group:
        check_hints(f"training:{component}:{mistake}", results[component].feedback())
        failed = [t.name for t in results[component].tests if not t.passed]
        assert failed and all("train" in name for name in failed), f"'{mistake}': {failed}"
    assert full_marks_except(results, *(component for component, _, _ in group)) == []


def test_dropout_written_every_other_correct_way_keeps_full_marks(tmp_path, sandbox):
    results = graded(tmp_path, sandbox, None, TRAINING_VARIANTS, everything=True)
    assert full_marks_except(results) == []
    assert [c.diagnosis for c in results.values() if c.diagnosis] == []


@pytest.mark.parametrize("component, mistake, edits", [pytest.param(*o, id=f"{o[0]}-{o[1]}") for o in OUTSIDE])
def test_mistake_outside_the_catalog_is_not_named(tmp_path, sandbox, component, mistake, edits):
    own = graded(tmp_path, sandbox, component, mutations.variant_edits(component, edits))[component]
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
