"""While a component is graded, every other name is the reference's and its own reference is nowhere."""
import pytest

from autograder import spec
from helpers import scores, submission


@pytest.mark.parametrize("component", [c.id for c in spec.COMPONENTS])
def test_child_never_holds_the_graded_components_reference(component):
    held = spec.references_for(component)
    assert component not in {c.id for c in held}
    assert all(component not in spec.dependencies(c.id) for c in held)


def test_integration_check_holds_no_reference():
    assert spec.references_for(spec.INTEGRATION) == ()


def test_reference_is_not_in_memory_for_a_student_to_find(tmp_path):
    """A student who searches memory for another MultiHeadAttention to call finds none."""
    cheat = (
        "import gc\n"
        "        found = [o for o in gc.get_objects() if isinstance(o, type) and o.__name__ == 'MultiHeadAttention' and o is not type(self)]\n"
        "        if not found:\n"
        "            raise LookupError('no reference in memory')\n"
        "        return found[0].forward(self, hidden_states, mask, key_value_states)"
    )
    path = submission(tmp_path / "cheat", [("multihead", "source = hidden_states if key_value_states is None else key_value_states", cheat)])
    results, _ = scores(path, components=["multihead"])
    assert results["multihead"].score == 0
    assert "LookupError: no reference in memory" in results["multihead"].feedback()
