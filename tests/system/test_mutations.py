"""Mistakes graded: a cataloged mistake, or another member of its family, loses points in its own component and
the feedback names it (every member under `make catalog`, a cover of the grading path's cases under make test:
support.mutations.representatives); two in one component are named together; mistakes outside the catalog are
named as nothing. Each is graded by its component's hidden suites in this process (helpers.graded_here: the cases,
checks, hints and diagnosis of a jailed grading, on the same numbers), and one cataloged mistake of each component in
the jail, which loses there exactly what the suites in this process take, its sentence reaching the report. Written
with additions that other components use, a mistake loses points in its own component only (the isolation the SPEC
promises); mistakes that show only when the model trains lose points in train mode alone.

Every member graded here is a grading run, a second of CPU or so: that the diagnosis names each entry of the evidence
from its numbers, and only by its sentence, is tests/unit/test_mutations.py's, which needs no grading. Here the
numbers are the graded code's own. Precision on correct code: the styles of tests/system/test_variants.py get no
"Likely mistake:" line (checked there, on their class grading).

Each mistake is graded in its own component only: that the others keep full marks whatever this file holds is
isolation's promise, tested in tests/system/test_isolation.py, and here by the variants, whose additions the other
components use.
"""

import pytest
from support import mutations
from support.helpers import full_marks_except, graded_here, scores, submission
from support.hint_evidence import check_hints
from support.mutations import OUTSIDE, TRAINING_OUTSIDE, TRAINING_VARIANTS, VARIANTS

from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge import fixtures
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.platforms import gradescope

# The components with a catalog: every one of the core's, and the course extensions' that have one.
CATALOGED = [c.id for c in spec.ALL_COMPONENTS if mistakes.of(c.id)]
# (mistake, entry id, edits) of the members of the families that make test grades (mutations.representatives): a
# mistake as written, then its variants.
MEMBERS = mutations.representatives(
    [
        (mistake.component, entry, mistake.id, (mistake, entry, edits))
        for mistake in mistakes.CATALOG
        for entry, edits in mistake.members()
    ],
    fixtures.HIDDEN,
)


def named(mistake):
    """Whether the evidence holds the mistake (the builder leaves out one that no outputs could name)."""
    return mistake.id in fixtures.evidence_of(mistake.component).entries


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


@pytest.mark.parametrize("component", CATALOGED)
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


# The first cataloged mistake of each component that its evidence names.
ONE_EACH = {c: next(filter(named, mistakes.of(c))) for c in CATALOGED}


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


# Issue 47: mistakes no masking case showed, when no call passed a device and every mask was padded on the right.
UNSEEN = {
    "causal_mask without its device argument": [("def causal_mask(size, device=None):", "def causal_mask(size):")],
    "padding_mask assumes right padding": [
        (
            "attention_mask.bool()[:, None, None, :]",
            "(torch.arange(attention_mask.size(1)) < attention_mask.sum(-1, keepdim=True))[:, None, None, :]",
        )
    ],
}


@pytest.mark.parametrize("mistake", sorted(UNSEEN))
def test_a_device_refused_and_right_padding_assumed_lose_points_in_masking(mistake):
    own = graded_here("masking", UNSEEN[mistake])
    assert own.score < own.points, own.feedback()
    assert own.diagnosis is None, own.feedback()


def test_the_reference_keeps_every_point_of_masking():
    own = graded_here("masking")
    assert own.score == own.points, own.feedback()


# The device case's mask is asked for again on torch's lazy-tensor device, where a mask made on the default device
# shows (mutations.OUTSIDE): every honest way of making it on the device given keeps every point there.
ON_THE_DEVICE_GIVEN = {
    "made, then moved": "return torch.ones(size, size).tril().bool().to(device)",
    "moved only when a device is given": "mask = torch.ones(size, size).tril() == 1\n"
    "    return mask if device is None else mask.to(device)",
    "indices compared": "rows = torch.arange(size, device=device)\n    return rows[:, None] >= rows[None, :]",
    "the future masked out in float": "future = torch.triu(torch.ones((1, size, size), device=device), diagonal=1)\n"
    "    return (future.type(torch.uint8) == 0)[0]",
    "filled row by row, its count read": "mask = torch.zeros(size, size, dtype=torch.bool, device=device)\n"
    "    for row in range(size):\n"
    "        mask[row, : row + 1] = True\n"
    "    assert mask.sum().item() == size * (size + 1) // 2\n"
    "    return mask",
}


@pytest.mark.parametrize("style", sorted(ON_THE_DEVICE_GIVEN))
def test_a_causal_mask_made_on_the_device_given_keeps_every_point(style):
    reference = "return torch.ones(size, size, dtype=torch.bool, device=device).tril()"
    own = graded_here("masking", [(reference, ON_THE_DEVICE_GIVEN[style])])
    assert own.score == own.points, own.feedback()
