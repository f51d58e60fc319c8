"""The student bundle: exactly what students receive, with no solution, hidden test or reference data,
and a local loop (public checks, `python -m autograder grade`) that works inside it alone."""

import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from support.course_helpers import NOTEBOOK_COMPONENTS, completed, execute, outputs

from autograder import bundle
from autograder.breakout import bank, quiz_notebooks
from autograder.course import HINTS, PUBLIC_CASES, jupyter, notebooks, stubs
from autograder.engine.contract import spec
from autograder.engine.judge import diagnosis, fixtures, hints


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return bundle.build(tmp_path_factory.mktemp("bundle") / "students")


def files(folder):
    """What a bundle folder holds, less the bytecode Python caches there when the students' commands run in it."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def student_cli(folder, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the bundle's own autograder, not the kit's
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)], cwd=folder, env=env, capture_output=True, text=True
    )


def solution_lines():
    """Every line of code inside a solution region of the reference, long enough to be distinctive."""
    for component in spec.COMPONENTS:
        inside = False
        for line in component.reference.read_text().splitlines():
            if "### BEGIN SOLUTION" in line or "### END SOLUTION" in line:
                inside = "BEGIN" in line
            elif inside and len(line.strip()) > 16 and not line.strip().startswith("#"):
                yield component.id, line.split("  #")[0].strip()


def test_bundle_holds_the_release_the_student_modules_a_readme_and_requirements(built):
    expected = [f"{notebooks.ASSIGNMENT}/{p.name}" for p in notebooks.RELEASE.glob("*.ipynb")]
    expected += [f"{quiz_notebooks.ASSIGNMENT}/{p.name}" for p in quiz_notebooks.RELEASE.glob("*.ipynb")]
    expected += [f"autograder/{name}" for name in bundle.STUDENT_MODULES] + list(bundle.STUDENT_DATA)
    expected += ["README.md", "requirements.txt"]
    assert files(built) == sorted(expected)
    # The modules are found from what students run: never what must not ship, always what they run.
    never = [g.replace(".", "/") for g in bundle.NEVER]
    assert [n for n in bundle.STUDENT_MODULES if f"autograder/{n}".startswith(tuple(never))] == []
    assert {"commands/student.py", "notebook.py", "engine/judge/suites/test_seq2seq.py"} <= set(bundle.STUDENT_MODULES)
    assert not re.search(r"^(nbgrader|pytest-xdist)", (built / "requirements.txt").read_text(), re.MULTILINE)
    assert (
        "torch==" in (built / "requirements.txt").read_text() and "pytest==" in (built / "requirements.txt").read_text()
    )
    # What it says about torch is true on a student's machine: the CPU index, as the bundle's README gives it.
    (index,) = re.findall(
        r"^pip install torch==\S+ (--index-url \S+)$", (built / "README.md").read_text(), re.MULTILINE
    )
    requirements = (built / "requirements.txt").read_text()
    assert index in requirements and " here" not in requirements
    # A comment is no requirement: what reads the pins (Gradescope's package, the tests) splits lines at "==".
    assert all("==" not in line for line in requirements.splitlines() if line.startswith("#"))


SHIPPED_CASES = {str(path.relative_to(spec.KIT_ROOT)) for path in PUBLIC_CASES.glob("*.*")}
# Of the catalog, whose edits quote the reference, the sentences alone, and of the steps' entries the hints alone
# (their texts are searched below as any other).
SHIPPED_SENTENCES = {
    str(path.relative_to(spec.KIT_ROOT)) for path in (hints.MISTAKE_SENTENCES, hints.STEP_HINTS, hints.FAILURE_HINTS)
}
# The hint ladders under the course's setting: their last level is the line itself, given to a student who asks for
# it (course/settings.yaml's none ships none: tests/system/test_ladder.py); searched for every other secret.
SHIPPED_HINTS = str(HINTS.relative_to(spec.KIT_ROOT))


def test_bundle_holds_no_solution_no_hidden_test_and_no_reference_data(built):
    texts = {name: (built / name).read_text() for name in files(built) if not name.endswith(".npz")}
    for name, text in texts.items():
        for secret in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS"):
            assert secret not in text, f"{secret} in {name}"
    leaked = [
        (c, line, name)
        for c, line in solution_lines()
        for name, text in texts.items()
        if line in text and name != SHIPPED_HINTS
    ]
    assert leaked == [], leaked
    assert texts[SHIPPED_HINTS] == stubs.hints_table()
    data = {str(p.relative_to(built)) for p in built.rglob("*") if p.suffix in (".npz", ".json", ".yaml")}
    assert data == SHIPPED_CASES | SHIPPED_SENTENCES | {SHIPPED_HINTS} and SHIPPED_CASES


def _distinctive(arrays):
    """The distinct float values of these arrays but those with six decimals or fewer (0.2 is the weight of
    each of five keys in any case, and proves nothing) and those within 1e-6 of 0 (what rounding leaves of a
    sum that cancels, alike in any case)."""
    values = np.concatenate([a.ravel().astype(np.float64) for a in arrays if a.dtype.kind == "f"] or [np.zeros(0)])
    values = values[np.isfinite(values)]
    return set(values[(values != np.round(values, 6)) & (np.abs(values) > 1e-6)].tolist())


def _hidden_values(component):
    """Every float of a component's hidden cases and of its mistakes' evidence on them, but the sinusoidal
    table's: a function of two sizes alone, the same in any case that asks for those sizes."""
    table = {case.id for case in fixtures.of_kind(component, "sinusoidal")}
    arrays = [
        a
        for case in fixtures.cases(component)
        if case.id not in table
        for group in (case.inputs, case.params, case.expected)
        for a in group.values()
    ]
    evidence = fixtures.evidence_of(component)
    for entry_id, entry in evidence.entries.items():
        for key, found in entry["evidence"].items():
            for name, about in (
                found.get("outputs", {}).items() if key not in table and found["kind"] == "values" else ()
            ):
                count = diagnosis.sample(
                    diagnosis.SEPARATOR.join((entry_id, key, name)), int(np.prod(about["shape"])), about["extra"]
                ).size
                arrays.append(evidence.arrays[entry_id][about["offset"] : about["offset"] + count])
    return _distinctive(arrays)


@pytest.mark.parametrize("component", [c.id for c in spec.COMPONENTS])
def test_the_public_cases_hold_no_value_of_a_hidden_case(built, component):
    """The public checks' cases and evidence: not one of their numbers is a hidden case's input, expected value
    or weight, nor any mistake's output on one (they are drawn from other seeds)."""
    shipped = []
    for path in (built / PUBLIC_CASES.relative_to(spec.KIT_ROOT)).glob(f"{component}.*npz"):
        with np.load(path, allow_pickle=False) as arrays:
            shipped += [arrays[k] for k in arrays.files]
    shipped, hidden = _distinctive(shipped), _hidden_values(component)
    assert len(shipped) > 100 or not hidden  # masks and tokens alone, where the component has no float
    # Weights on both sides are float32 draws from the same distributions, a few hundred thousand each, and
    # float32 has some millions of values there: a handful coincide by chance, where a copied array shares all.
    assert len(shipped & hidden) <= max(3, len(shipped) // 1000), sorted(shipped & hidden)[:10]


def test_bundle_holds_no_quiz_answer(built):
    """Explanations and model answers say what the answer is; neither may reach students who are graded."""
    texts = "\n".join((built / name).read_text() for name in files(built) if not name.endswith(".npz"))
    for question in (q for part in bank.load() for q in part.questions):
        for secret in (question.explanation, question.model_answer):
            first_line = secret.splitlines()[0] if secret else ""
            assert not first_line or first_line not in texts, f"{question.id}: {first_line}"
        if question.autograded:
            assert f"{question.id} = {question.written_answer()!r}" not in texts, question.id
    # No bank, so no quiz: the command says where the questions are, rather than that it does not exist.
    run = student_cli(built, "quiz")
    assert run.returncode == 2 and "not in this bundle" in run.stdout and "breakout/" in run.stdout, run.stdout
    assert "invalid choice" not in run.stderr
    usage = student_cli(built, "--help").stdout
    assert "regenerat" not in usage and "check your work" in usage, usage


def test_the_bundles_readme_names_only_commands_the_bundle_has(built):
    """Every command the students' README has them run is one the bundle installs: it once said `nbgrader
    validate` runs the checks, and the bundle installs no nbgrader (`command not found`)."""
    readme = (built / "README.md").read_text()
    commands = re.findall(r"`((?:nbgrader|jupyter|pip|python -m \S+) [^`]*)`", readme)
    commands += re.findall(r"^((?:nbgrader|jupyter|pip|python -m \S+) .*)$", readme, re.MULTILINE)
    installed = {line.split("==")[0] for line in (built / "requirements.txt").read_text().splitlines() if "==" in line}
    assert all(command.split()[0] != "nbgrader" or "nbgrader" in installed for command in commands), commands
    subcommands = {command.split()[3] for command in commands if command.startswith("python -m autograder ")}
    assert subcommands, commands
    for subcommand in sorted(subcommands):
        assert student_cli(built, subcommand, "--help").returncode == 0, subcommand


def test_students_grade_their_folder_with_the_public_checks(built, tmp_path):
    untouched = student_cli(built, "grade", notebooks.ASSIGNMENT)
    assert untouched.returncode == 0, untouched.stdout + untouched.stderr
    assert untouched.stdout.count("not started") == len(NOTEBOOK_COMPONENTS)
    mine = completed(built / notebooks.ASSIGNMENT, notebooks.SOURCE, tmp_path / "mine")
    done = student_cli(built, "grade", mine)
    taught = len(NOTEBOOK_COMPONENTS)
    assert f"{taught} of {taught} components pass every public check" in done.stdout, done.stdout


def test_instructor_commands_are_not_in_the_bundle(built):
    run = student_cli(built, "grade-all", notebooks.ASSIGNMENT)
    assert run.returncode == 2 and "invalid choice" in run.stderr


def test_a_completed_notebook_runs_in_the_bundle_alone(built, tmp_path):
    folder = completed(built / notebooks.ASSIGNMENT, notebooks.SOURCE, tmp_path / "work")
    jupyter.kernelspec(tmp_path / "jupyter" / "kernels", kit_root=built)
    nb = execute(folder / "05_encoder_heads.ipynb", dict(os.environ, JUPYTER_PATH=str(tmp_path / "jupyter")))
    assert outputs(nb, "error") == []
    assert any(re.search(r"encoder: all \d+ public checks passed", o.get("text", "")) for _, o in outputs(nb, "stream"))
    assert any("image/png" in o.get("data", {}) for _, o in outputs(nb, "display_data")), "the attention heatmaps"


def test_bundle_with_the_quiz_runs_it_alone(tmp_path):
    with_quiz = bundle.build(tmp_path / "students", quiz=True)
    assert sorted(p.name for p in (with_quiz / "breakout_questions").iterdir()) == sorted(
        p.name for p in bank.BANK.glob("*.yaml")
    )
    part = bank.load()[0]
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "quiz", "1"],
        cwd=with_quiz,
        capture_output=True,
        text=True,
        input=f"{part.questions[0].written_answer()}\nquit\n",
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    # Quit at the second question: shown, never answered, so it counts nothing (issue 49: it once counted).
    answered = part.questions[0].points
    assert run.returncode == 0 and "Correct." in run.stdout and f"Score: 1 of {answered:g} points" in run.stdout, (
        run.stdout + run.stderr
    )


def test_bundle_as_zip_and_refuses_to_overwrite(built, tmp_path):
    archive = bundle.build(tmp_path / "students.zip")
    with zipfile.ZipFile(archive) as file:
        assert sorted(n.removeprefix("students/") for n in file.namelist()) == files(built)
    with pytest.raises(FileExistsError):
        bundle.build(built)
