"""Mistakes graded in the jail: one cataloged mistake of each component loses there exactly what the hidden suites
in this process take (tests/unit/test_mutations.py grades every mistake so), and its sentence reaches the report;
written with additions that other components use, a mistake loses points in its own component only (the isolation
the SPEC promises); and mistakes that show only when the model trains lose points in train mode alone.
"""

import pytest
from support import mutations
from support.helpers import full_marks_except, graded_here, scores, submission
from support.hint_evidence import check_hints
from support.mutations import TRAINING_OUTSIDE, TRAINING_VARIANTS, VARIANTS

from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge import fixtures
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.platforms import gradescope

# The first cataloged mistake of each component that its evidence names.
ONE_EACH = {
    c.id: next(m for m in mistakes.of(c.id) if m.id in fixtures.evidence_of(c.id).entries) for c in spec.COMPONENTS
}


def graded(tmp_path, sandbox, component, edits, everything=False):
    path = submission(tmp_path / "mutant", edits)
    results, _ = scores(path, sandbox=sandbox, components=None if everything else [component])
    return results


def test_in_the_jail_a_mistake_loses_what_the_suites_here_take_and_its_sentence_reaches_the_report(tmp_path, sandbox):
    """One submission with one mistake in each component's file, graded once: each component is graded with the
    others' references (isolation), so each scores and reads exactly as its mistake graded alone in this process."""
    path = submission(tmp_path / "mutant", [edit for m in ONE_EACH.values() for edit in mutations.edits(m)])
    results, report = scores(path, sandbox=sandbox, components=list(ONE_EACH))
    uploaded = {test["name"]: test["output"] for test in gradescope(report)["tests"]}
    for component, mistake in ONE_EACH.items():
        jailed = results[component]
        assert jailed.score < jailed.points, f"'{mistake.name}' kept full marks in {component}"
        assert jailed.diagnosis == LIKELY_MISTAKE + mistake.says, jailed.feedback()
        assert jailed.feedback().splitlines()[1] == jailed.diagnosis
        here = graded_here(component, mistake.edits)
        assert (jailed.score, jailed.feedback()) == (here.score, here.feedback())
        assert f"[{component}] {jailed.feedback().splitlines()[0]}\n  {jailed.diagnosis}" in report.table()
        assert jailed.diagnosis in uploaded[component]


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
