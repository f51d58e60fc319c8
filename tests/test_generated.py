"""Stubs and fixtures are generated from the reference by one command; drift fails here."""
import pytest

from autograder import generated
from autograder.course import stubs
from autograder.engine.contract import spec


@pytest.mark.parametrize("part", generated.PARTS)
def test_generated_files_match_the_reference(part):
    assert generated.drift([part]) == [], "run: python -m autograder generate"


def test_every_solution_region_becomes_a_hinted_raise():
    for component in spec.COMPONENTS:
        source = component.reference.read_text()
        stub = component.stub.read_text()
        assert stub.count("raise NotImplementedError(") == source.count(stubs.BEGIN) > 0
        assert stubs.BEGIN not in stub and "# Hint:" not in stub


@pytest.mark.parametrize(
    "source, problem",
    [
        ("    ### BEGIN SOLUTION\n    x = 1\n    ### END SOLUTION\n", "needs a '# Hint: ...' line"),
        ("    # Hint: h\n    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
        ("    ### END SOLUTION\n", "without"),
    ],
)
def test_malformed_markers_are_refused(source, problem):
    with pytest.raises(stubs.MarkerError, match=problem):
        stubs.stub_source(source)


def test_pyproject_pins_what_requirements_txt_pins():
    import tomllib

    project = tomllib.loads((spec.KIT_ROOT / "pyproject.toml").read_text())["project"]
    pinned = project["dependencies"] + [p for extra in project["optional-dependencies"].values() for p in extra if "==" in p]
    lines = (spec.KIT_ROOT / "requirements.txt").read_text().splitlines()
    assert sorted(pinned) == sorted(line for line in lines if line and not line.startswith("#"))
