"""Everything generated comes from one command, part by part; drift fails here, and a built part's stamp follows
exactly what its values are computed from. (What needs a process of its own, a kit copied, a build traced or
nbgrader's release: tests/system/test_generated.py.)"""

import shutil

import numpy as np
import pytest
import torch
from support.helpers import RELEASED_PARTS

from autograder import generated
from autograder.course import stubs
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault


@pytest.mark.parametrize(
    "part", [part for part in generated.PARTS if part not in generated.STAMPED and part not in RELEASED_PARTS]
)
def test_generated_files_match_the_reference(part):
    assert generated.drift([part]) == [], f"run: python -m autograder generate --part {part}"


def test_only_the_units_that_hash_a_module_of_their_own_have_cases_it_runs():
    """A mistake's run on a case that is not one plain call (graded by its effect, or with state) is effect_runs.py's,
    which only the stamps of the units that name it in inputs.COMPUTES_OF hash: no other unit's cases, hidden or
    public, may be of those kinds, whose values would then move with no stamp of theirs staled."""
    from autograder.course.public import PUBLIC
    from autograder.engine.authoring import effect_runs, inputs
    from autograder.engine.judge import fixtures

    for component in generated.COMPONENTS:
        kinds = {case.kind for cases in (fixtures.HIDDEN, PUBLIC) for case in cases.cases(component)}
        hashed = effect_runs.__name__ in inputs.COMPUTES_OF.get(component, ())
        assert bool(kinds & set(effect_runs.KINDS)) == hashed, component


@pytest.mark.parametrize("part", generated.STAMPED)
def test_built_files_carry_the_stamp_of_their_inputs(part):
    """Rebuilding fixtures and evidence takes minutes: `make drift` does it (CI runs it after the tests); here,
    a stamp says whether their inputs or files changed since they were last built or checked."""
    assert generated.stale([part]) == [], f"run: python -m autograder generate (or --check --part {part})"


def test_every_edit_of_the_catalog_applies_once_to_the_reference():
    """What a stamp leaves out of the reference (its comments) cannot change a mistake's code: every edit's old
    text is there exactly once, or mistake.apply raises."""
    for mistake in mistakes.CATALOG:
        source = spec.BY_ID[mistake.component].reference.read_text()
        for member, edits in mistake.members():
            assert mistakes.apply(source, edits) != source, member


def test_a_stamp_changes_with_the_files(tmp_path, monkeypatch):
    part = "fixtures:masking"
    before = generated.stamp(part)
    copy = tmp_path / "fixtures"
    shutil.copytree(generated.FIXTURES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(generated, "FIXTURES", copy)
    assert generated.stamp(part) == before
    (copy / "masking.json").write_text((copy / "masking.json").read_text() + "\n")
    assert generated.stamp(part)["files"] != before["files"]


def test_a_rebuild_replaces_only_the_files_whose_values_moved(tmp_path, monkeypatch):
    """Files within DRIFT_TOLERANCE of what a build makes stay byte for byte; the others are rewritten."""
    copy = tmp_path / "fixtures"
    copy.mkdir()
    for path in generated.files_of("fixtures:masking"):
        shutil.copy(path, copy)
    nudged, moved = copy / "masking.npz", copy / "masking.mistakes.npz"
    with np.load(nudged) as arrays:
        np.savez_compressed(nudged, **{k: a * (1 + 1e-14) if a.dtype.kind == "f" else a for k, a in arrays.items()})
    with np.load(moved) as arrays:
        np.savez_compressed(moved, **{k: a + 1e-6 if a.dtype.kind == "f" else a for k, a in arrays.items()})
    kept = {path.name: path.read_bytes() for path in copy.iterdir() if path != moved}
    committed = generated.FIXTURES / moved.name
    monkeypatch.setattr(generated, "FIXTURES", copy)
    monkeypatch.setattr(generated, "STAMPS", tmp_path / "stamps.json")
    assert generated.generate(["fixtures:masking"], jobs=1, say=lambda line: None) == {
        "fixtures:masking": ["masking.mistakes.npz"]
    }
    assert {name: (copy / name).read_bytes() for name in kept} == kept
    assert generated._same(moved, committed)
    assert generated.stale(["fixtures:masking"]) == []


def test_every_solution_region_becomes_a_bare_raise():
    """The docstring states the contract; the hints reach a student only when asked (tests/unit/test_ladder.py)."""
    for component in spec.COMPONENTS:
        source = component.reference.read_text()
        stub = component.stub.read_text()
        assert stub.count(stubs.STUB) == stub.count("raise NotImplementedError(") == source.count(stubs.BEGIN) > 0
        assert stubs.BEGIN not in stub and "# Hint" not in stub


@pytest.mark.parametrize(
    "source, problem",
    [
        ("    ### BEGIN SOLUTION\n    x = 1\n    ### END SOLUTION\n", "needs its ladder just above it"),
        ("    # Hint 1: h\n    # Hint 2: i\n    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
        ("    ### END SOLUTION\n", "without"),
    ],
)
def test_malformed_markers_are_refused(source, problem):
    with pytest.raises(KitFault, match=problem):
        stubs.stub_source(source)


def test_pyproject_pins_what_requirements_txt_pins():
    import tomllib

    project = tomllib.loads((spec.KIT_ROOT / "pyproject.toml").read_text())["project"]
    pinned = project["dependencies"] + [
        p for extra in project["optional-dependencies"].values() for p in extra if "==" in p
    ]
    lines = (spec.KIT_ROOT / "requirements.txt").read_text().splitlines()
    assert sorted(pinned) == sorted(line for line in lines if line and not line.startswith("#"))


def test_weights_that_several_cases_share_are_stored_once(tmp_path):
    """A model under several cases (a beam search's) is written once, under its first case, and read back as every
    case's; weights that differ in one value are each case's own."""
    from autograder.engine.authoring.builder import Builder, In
    from autograder.engine.judge import fixtures

    weights = {"linear.weight": torch.randn(4, 4), "linear.bias": torch.randn(4)}
    moved = {**weights, "linear.bias": weights["linear.bias"] + 1}
    builder = Builder("component", reference={})
    for case_id, params in (("first", weights), ("again", dict(weights)), ("own", moved), ("third", weights)):
        x = torch.randn(2, 4)
        builder.add(
            case_id,
            "",
            "kind",
            "Target",
            args=[In("x")],
            outputs=["y"],
            inputs={"x": x},
            params=params,
            expected=[x],
            train_outputs=[],
        )
    builder.write(tmp_path)
    with np.load(tmp_path / "component.npz") as stored:
        assert sorted({key.split("/")[0] for key in stored.files if "/params/" in key}) == ["first", "own"]
    read = {case.id: case for case in fixtures.read(tmp_path, "component")}
    for case_id, params in (("first", weights), ("again", weights), ("own", moved), ("third", weights)):
        assert read[case_id].params.keys() == params.keys()
        assert all(np.array_equal(read[case_id].params[name], value.numpy()) for name, value in params.items())
