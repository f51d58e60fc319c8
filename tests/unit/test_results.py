"""A report keeps the core's 100 apart from the course extensions' points, in the table, results.json and the CSV,
and a report of the core alone reads as it always has."""

import csv

from autograder.commands.grading import _write_csv
from autograder.engine.contract import spec
from autograder.engine.judge.platforms import gradescope
from autograder.engine.judge.results import ComponentResult, Report
from autograder.engine.judge.run import TestResult


def scored(component_id, passed, total=4):
    tests = [TestResult(f"t{i}", i < passed, "" if i < passed else "wrong") for i in range(total)]
    return ComponentResult(component_id, spec.BY_ID[component_id].points, tests)


def report(extensions=()):
    """Every core component at full marks but layernorm (2 of 4), and these extensions' results."""
    core = [scored(c.id, 2 if c.id == "layernorm" else 4) for c in spec.COMPONENTS]
    return Report("s", [*core, ComponentResult(spec.INTEGRATION, 0, [TestResult("t", True)]), *extensions], [], 1.0)


LAYERNORM_LOST = spec.BY_ID["layernorm"].points / 2
TRAINING, GENERATION = (spec.BY_ID[i].points for i in ("training", "generation"))


def test_a_core_report_has_no_extension_totals_anywhere():
    plain = report()
    assert not plain.extended
    assert (plain.score, plain.max_score) == (spec.TOTAL_POINTS - LAYERNORM_LOST, spec.TOTAL_POINTS)
    assert not [line for line in plain.table().splitlines() if line.startswith(("core", "extensions"))]
    assert not {"core", "extensions"} & set(gradescope(plain)["extra_data"])


def test_the_extensions_points_are_counted_apart_from_the_cores():
    extended = report([scored("training", 1), scored("generation", 4)])
    core = (spec.TOTAL_POINTS - LAYERNORM_LOST, spec.TOTAL_POINTS)
    extensions = (TRAINING / 4 + GENERATION, TRAINING + GENERATION)
    assert extended.totals() == {"core": core, "extensions": extensions}
    assert (extended.score, extended.max_score) == (core[0] + extensions[0], core[1] + extensions[1])
    lines = {line.split()[0]: line.split()[1:] for line in extended.table().splitlines() if line.strip()}
    assert lines["core"] == [f"{core[0]:.2f}", "/", f"{core[1]:g}"]
    assert lines["extensions"] == [f"{extensions[0]:.2f}", "/", f"{extensions[1]:g}"]
    assert lines["total"] == [f"{extended.score:.2f}", "/", f"{extended.max_score:g}"]
    results = gradescope(extended)
    assert results["extra_data"] == {
        "problem": None,
        "loading": [],
        "to_read": [],
        "core": {"score": core[0], "max_score": core[1]},
        "extensions": {"score": extensions[0], "max_score": extensions[1]},
    }
    assert (results["score"], results["max_score"]) == (extended.score, extended.max_score)


def rows_of(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def csv_row(name, report):
    """The row grade-all makes of a report (commands/grading.py)."""
    scores = {c.id: c.score for c in report.scored}
    totals = {part: score for part, (score, _) in report.totals().items()}
    return {"submission": name, "total": report.score, **totals, **scores, "flags": "", "problem": ""}


def test_the_csv_has_the_extension_columns_only_when_a_submission_was_graded_on_one(tmp_path):
    _write_csv(tmp_path / "core.csv", [csv_row("ada", report())])
    with open(tmp_path / "core.csv", newline="") as file:
        assert next(csv.reader(file)) == ["submission", "total", *(c.id for c in spec.COMPONENTS), "flags", "problem"]
    _write_csv(tmp_path / "class.csv", [csv_row("ada", report()), csv_row("ben", report([scored("training", 2)]))])
    ada, ben = rows_of(tmp_path / "class.csv")
    assert list(ben) == [
        "submission",
        "total",
        "core",
        "extensions",
        *(c.id for c in spec.COMPONENTS),
        "training",
        "flags",
        "problem",
    ]
    assert (ada["core"], ada["extensions"], ada["training"]) == (ada["total"], "0", "")
    assert float(ben["core"]) + float(ben["extensions"]) == float(ben["total"])
    assert float(ben["training"]) == float(ben["extensions"]) == TRAINING / 2


def test_a_grading_takes_the_extensions_whose_names_a_submission_defines_once_their_suites_exist(tmp_path, monkeypatch):
    core = [c.id for c in spec.COMPONENTS]
    assert all(spec.has_suite(c) for c in spec.COMPONENTS)
    monkeypatch.setattr(spec, "SUITES", tmp_path)
    assert spec.graded_by_default({"learning_rate": "nb9", "beam_search": "nb10"}) == [*core, spec.INTEGRATION]
    for component in spec.EXTENSIONS:
        (tmp_path / f"test_{component.id}.py").write_text("")
    assert spec.graded_by_default({"LayerNorm": "ln"}) == [*core, spec.INTEGRATION]
    assert spec.graded_by_default({"learning_rate": "nb9"}) == [*core, "training", spec.INTEGRATION]
    assert spec.graded_by_default({"beam_search": "nb10", "shift_right": "nb9"}) == [
        *core,
        "training",
        "generation",
        spec.INTEGRATION,
    ]
