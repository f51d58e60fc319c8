"""Every common mistake loses points in its own component, and only there."""
import pytest

from autograder import spec
import mutations
from mutations import MUTATIONS
from helpers import full_marks_except, scores, submission


def test_catalog_covers_every_component_with_thirty_mistakes():
    assert len({(c, m) for c, m, _ in MUTATIONS}) >= 30
    assert {c for c, _, _ in MUTATIONS} == {c.id for c in spec.COMPONENTS}


@pytest.mark.parametrize(
    "component, mistake, edits",
    [pytest.param(c, m, e, id=f"{c}-{m.replace(' ', '-')}") for c, m, e in MUTATIONS],
)
def test_mutant_loses_points_only_in_its_component(tmp_path, sandbox, component, mistake, edits):
    path = submission(tmp_path / "mutant", mutations.edits(component, edits))
    results, _ = scores(path, sandbox=sandbox)
    own = results[component]
    assert own.score < own.points, f"'{mistake}' kept full marks in {component}"
    assert own.feedback().strip(), "a lost point needs a message"
    assert full_marks_except(results, component) == []
