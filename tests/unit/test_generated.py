"""Stubs and fixtures are generated from the reference by one command; drift fails here. (The parts whose
release nbgrader makes: tests/system/test_generated.py.)"""

import pytest
from support.helpers import RELEASED_PARTS

from autograder import generated
from autograder.course import stubs
from autograder.engine.contract import spec


@pytest.mark.parametrize("part", [p for p in generated.PARTS if p not in generated.BUILT and p not in RELEASED_PARTS])
def test_generated_files_match_the_reference(part):
    assert generated.drift([part]) == [], "run: python -m autograder generate"


@pytest.mark.parametrize("part", list(generated.BUILT))
def test_built_files_carry_the_stamp_of_their_inputs(part):
    """Rebuilding fixtures and evidence takes minutes: `make drift` does it (CI runs it after the tests); here,
    a stamp says whether their inputs or files changed since they were last built or checked."""
    assert generated.stale([part]) == [], (
        "run: python -m autograder generate (or make drift, which restamps current files)"
    )


def test_a_stamp_changes_with_the_reference_the_builder_and_the_files(tmp_path, monkeypatch):
    part = "fixtures:attention"
    before = generated.stamp(part)
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    for path in spec.SOLUTIONS.glob("*.py"):
        (solutions / path.name).write_text(path.read_text())
    (solutions / "attention.py").write_text((solutions / "attention.py").read_text() + "\n")
    monkeypatch.setattr(spec, "SOLUTIONS", solutions)
    assert generated.stamp(part)["inputs"] != before["inputs"]
    monkeypatch.undo()
    assert generated.stamp(part) == before
    assert "autograder/engine/build/evidence.py" in {
        str(p.relative_to(spec.KIT_ROOT)) for p in generated._modules_of(generated.BUILT[part])
    }


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
    pinned = project["dependencies"] + [
        p for extra in project["optional-dependencies"].values() for p in extra if "==" in p
    ]
    lines = (spec.KIT_ROOT / "requirements.txt").read_text().splitlines()
    assert sorted(pinned) == sorted(line for line in lines if line and not line.startswith("#"))
