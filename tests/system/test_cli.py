"""The command line, as SPEC fixes it: grade (table, results.json, exit 0) and check-solutions."""

import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from support.helpers import catalog, first_in_solution, submission

from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

SUPPORT = spec.KIT_ROOT / "tests" / "support"


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True, cwd=spec.KIT_ROOT
    )


def test_check_solutions_says_its_verdict_first_and_no_expected_failure():
    run = cli("check-solutions")
    assert run.returncode == 0, run.stdout + run.stderr
    first = run.stdout.splitlines()[0]
    assert first.startswith("check-solutions passed: reference 100/100") and "untouched release 0/100" in first
    # The reference's table, and not a FAILED line per test of the untouched release (about 60 once).
    assert "Grading " in run.stdout and "FAILED" not in run.stdout, run.stdout


def test_a_command_that_grades_nothing_imports_no_torch():
    """Every command's parser is built before it runs: where building it imported torch (the static check's, for a
    sentence of its), `quiz` and `report` paid for torch's import before doing anything."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autograder", "quiz", "12"],
        capture_output=True,
        text=True,
        cwd=spec.KIT_ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2 and "no part '12'" in run.stdout, run.stdout + run.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "autograder.commands.grading" in imported and "torch" not in imported


def test_grade_writes_gradescope_results(tmp_path):
    path = submission(
        tmp_path / "s",
        catalog("masking/causal-mask-upper-triangular"),
        files={"noisy.py": "import warnings\nif True:\n    print('NOISE')\n    warnings.warn('NOISE')\n"},
    )
    run = cli("grade", path, "--json", tmp_path / "results.json")
    assert run.returncode == 0
    assert "NOISE" not in run.stdout + run.stderr, "student output must not reach the grader's"
    results = json.loads((tmp_path / "results.json").read_text())
    assert set(results) >= {"score", "max_score", "execution_time", "tests"}
    assert results["max_score"] == 100 and results["score"] < 100
    tests = {t["name"]: t for t in results["tests"]}
    assert set(tests) == {c.id for c in spec.COMPONENTS} | {spec.INTEGRATION}
    for test in tests.values():
        assert set(test) == {
            "name",
            "score",
            "max_score",
            "status",
            "output",
            "tags",
            "visibility",
            "extra_data",
        } and test["tags"] == [test["name"]]
    assert tests["masking"]["status"] == "failed" and "causal" in tests["masking"]["output"]
    assert (
        tests["masking"]["output"].splitlines()[1]
        == LIKELY_MISTAKE + mistakes.BY_ID["masking/causal-mask-upper-triangular"].says
    )
    assert tests["attention"]["status"] == "passed" and tests["attention"]["score"] == 10
    # The stack fails against BERT through the masking bug: a platform shows that failed, so its first line
    # says it is worth nothing (issue 27: the 0-point test read as lost points).
    integration = tests[spec.INTEGRATION]
    assert integration["status"] == "failed" and integration["max_score"] == 0
    assert "Not scored" in integration["output"].splitlines()[0] and "Not scored" not in tests["masking"]["output"]


def test_grade_exits_zero_for_a_broken_submission(tmp_path):
    (tmp_path / "broken.py").write_text("def oops(:\n")
    run = cli("grade", tmp_path / "broken.py", "--component", "masking")
    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr
    assert "syntax error on line 1" in run.stdout


def test_output_to_a_reader_that_went_away_ends_without_a_traceback(tmp_path):
    """`python -m autograder grade ... | head -1`: the pipe is closed before the table is written."""
    (tmp_path / "broken.py").write_text("def oops(:\n")
    command = [sys.executable, "-m", "autograder", "grade", str(tmp_path / "broken.py"), "--component", "masking"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=spec.KIT_ROOT)
    run.stdout.close()
    errors = run.stderr.read()
    assert run.wait() == 1 and errors == "", errors


def test_grade_all_writes_a_row_and_a_report_per_submission(tmp_path):
    folder = tmp_path / "class"
    submission(folder / "alice")
    submission(folder / "bob", catalog("layernorm/eps-outside-the-square-root"))
    (folder / ".ipynb_checkpoints").mkdir()
    run = cli("grade-all", folder, "--csv", tmp_path / "grades.csv", "--json-dir", tmp_path / "reports")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader((tmp_path / "grades.csv").open()))
    assert [(r["submission"], float(r["total"])) for r in rows] == [
        ("alice", 100.0),
        ("bob", 95 + round(5 * 17 / 21, 2)),
    ]
    assert float(rows[1]["layernorm"]) == round(5 * 17 / 21, 2) and float(rows[1]["encoder"]) == 15
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["alice.json", "bob.json"]
    # Not a terminal: the progress is one plain line per submission, on stderr, away from the table.
    assert re.search(
        r"^graded 1/2: (alice|bob) \(about \d+:\d\d left\)\ngraded 2/2: (alice|bob) \(done\)$", run.stderr, re.M
    )


def test_grade_all_keeps_a_report_per_submission_whose_names_share_a_stem(tmp_path):
    """bob/ and bob.evil/ once wrote the same bob.json, and bob's report was lost."""
    folder = tmp_path / "class"
    for name in ("bob", "bob.evil"):
        (folder / name).mkdir(parents=True)
        (folder / name / "masking.py").write_text((spec.SOLUTIONS / "masking.py").read_text())
    (folder / "bob.py").write_text("def oops(:\n")
    (folder / "carol.py").write_text((spec.SOLUTIONS / "masking.py").read_text())
    run = cli("grade-all", folder, "--json-dir", tmp_path / "reports", "--csv", tmp_path / "grades.csv")
    assert run.returncode == 0, run.stdout + run.stderr
    reports = {p.name: json.loads(p.read_text()) for p in (tmp_path / "reports").iterdir()}
    assert sorted(reports) == ["bob.evil.json", "bob.json", "bob.py.json", "carol.py.json"]
    masking = {
        name: [t["score"] for t in report["tests"] if t["tags"] == ["masking"]] for name, report in reports.items()
    }
    assert masking["bob.json"] == masking["bob.evil.json"] == [5] and reports["bob.py.json"]["score"] == 0
    # The CSV's ids: a file's name without its suffix (carol), whole where that would join two students.
    rows = {row["submission"]: row for row in csv.DictReader((tmp_path / "grades.csv").open())}
    assert sorted(rows) == ["bob", "bob.evil", "bob.py", "carol"]
    # A zero says why, in the CSV as on screen: here, the syntax error that left nothing to grade.
    assert "syntax error on line 1" in rows["bob.py"]["problem"] and rows["carol"]["problem"] == ""
    assert "feedforward" in run.stdout.splitlines()[0] and "embeddings" in run.stdout.splitlines()[0]


FORGED = "[attention] 10\u221510 tests passed."  # a division slash: a file name holds no "/"
ANSI = "\x1b[2J\x1b[H\x1b[32mtotal 100.00 / 100"


def test_what_a_student_wrote_reaches_the_screen_and_files_escaped(tmp_path):
    """Issue 26, class 4: an exception message of terminal escapes redrew the score table, and a file name
    with a newline put a forged report line into the table and into results.json."""
    folder = tmp_path / "class"
    eve = folder / f"eve\n{FORGED}"
    eve.mkdir(parents=True)
    masking = (spec.SOLUTIONS / "masking.py").read_text()
    raising = f"raise ValueError({ANSI + chr(10) + FORGED!r})"
    (eve / "masking.py").write_text(first_in_solution(masking, "causal_mask", raising))
    (eve / f"extra\n{FORGED}.py").write_text("raise ValueError('at import')\n")
    # Issue 34: names a spreadsheet would run as formulas, and a note that begins with one.
    (folder / '=HYPERLINK("evil.example","open me")').mkdir()
    (folder / '=HYPERLINK("evil.example","open me")' / "masking.py").write_text(masking)
    (folder / "@SUM(1+1).py").write_text(masking)
    (folder / "-2+3").mkdir()
    (folder / "-2+3" / "=1+1.py").symlink_to("/dev/zero")
    (folder / "-2+3" / "work.py").write_text("x = 1\n")

    run = cli("grade", eve, "--component", "masking", "--json", tmp_path / "results.json")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "\x1b" not in run.stdout and not any(line.lstrip().startswith(FORGED) for line in run.stdout.splitlines())
    assert "\\x1b[2J" in run.stdout and f"extra\\n{FORGED}.py, line 1" in run.stdout  # shown, made visible
    results = json.loads((tmp_path / "results.json").read_text())
    outputs = [results["output"]] + [test["output"] for test in results["tests"]]
    assert not any("\x1b" in text or line.lstrip().startswith(FORGED) for text in outputs for line in text.splitlines())

    run = cli("grade-all", folder, "--csv", tmp_path / "grades.csv", "--json-dir", tmp_path / "reports")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not any(line.lstrip().startswith(FORGED) for line in (run.stdout + run.stderr).splitlines())
    assert f"eve\n{FORGED}.json" in [p.name for p in (tmp_path / "reports").iterdir()]  # its own name, reversibly
    rows = {row["submission"]: row for row in csv.DictReader((tmp_path / "grades.csv").open())}
    row = rows[f"eve\\n{FORGED}"]
    assert float(row["masking"]) < 5
    assert sorted(rows) == ["'-2+3", '\'=HYPERLINK("evil.example","open me")', "'@SUM(1+1)", f"eve\\n{FORGED}"]
    assert rows["'-2+3"]["problem"].startswith("'=1+1.py was skipped")
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows.values() for cell in row.values())


def test_grade_all_refuses_a_missing_folder(tmp_path):
    run = cli("grade-all", tmp_path / "nowhere")
    assert run.returncode == 2 and "is not a folder" in run.stdout and "Traceback" not in run.stderr


def test_grade_says_in_one_sentence_what_is_not_a_submission(tmp_path, capsys):
    """In this process (a subprocess per case cost 2 s each): main's exit status and what it prints."""
    from autograder import __main__ as main

    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("write attention")
    (tmp_path / "notes.txt").write_text("write attention")
    for path, says in [
        ("missing", "does not exist"),
        ("empty", "holds no notebook (.ipynb) or Python file (.py)"),
        ("notes", "holds no notebook (.ipynb) or Python file (.py)"),
        ("notes.txt", "is not a notebook"),
    ]:
        for command in (["grade"], ["grade", "--public"]):
            code = main.main([*command, str(tmp_path / path)])
            out = capsys.readouterr()
            assert code == 2 and says in out.out and len(out.out.splitlines()) == 1, out.out + out.err
    # On a platform the results are still written, 0 and the reason: the student uploaded nothing to grade.
    run = cli("grade", tmp_path / "empty", "--json", tmp_path / "results.json", "--component", "masking")
    results = json.loads((tmp_path / "results.json").read_text())
    assert run.returncode == 2 and results["score"] == 0 and "holds no notebook" in results["output"]


def test_grade_all_refuses_an_empty_class_and_a_worker_count_below_one(tmp_path, capsys):
    from autograder import __main__ as main

    (tmp_path / "class").mkdir()
    run = cli("grade-all", tmp_path / "class")
    assert run.returncode == 2 and "holds no submission" in run.stdout and "total" not in run.stdout
    for workers in ("0", "-3", "two"):
        with pytest.raises(SystemExit) as exited:  # argparse's refusal, in this process
            main.main(["grade-all", str(tmp_path / "class"), "--workers", workers])
        assert exited.value.code == 2 and "is not a whole number of at least 1" in capsys.readouterr().err


def test_a_sandbox_that_does_not_start_is_the_kits_fault_in_one_line(tmp_path, monkeypatch, capsys):
    """A zygote that exits at once (a broken install, say) is no student's zero: grade prints one line that says
    the grader could not run, exits 2, and shows no traceback; with --json the platform still gets its results."""
    from autograder import __main__ as main
    from autograder.engine.judge import sandbox

    monkeypatch.setattr(sandbox, "BOOT", "import sys; sys.exit(3)")
    code = main.main(["grade", str(spec.SOLUTIONS), "--component", "masking", "--unsafe-no-jail"])
    out = capsys.readouterr()
    assert code == 2 and "Traceback" not in out.out + out.err
    assert "the grader could not run: the sandbox's zygote process does not start" in out.out
    code = main.main(
        ["grade", str(spec.SOLUTIONS), "--component", "masking", "--unsafe-no-jail", "--json", str(tmp_path / "r.json")]
    )
    results = json.loads((tmp_path / "r.json").read_text())
    assert code == 2 and results["score"] == 0 and "zygote process does not start" in json.dumps(results)


@pytest.mark.skipif(
    __import__("torch").cuda.is_available(), reason="on a machine with a GPU, CUDA starts and grading goes on"
)
def test_a_gpu_the_jail_cannot_start_cuda_on_stops_grading_in_one_line():
    """Rather than a class scored 0 with "while loading your code: ... cudaGetDeviceCount()" (seen on an H200)."""
    run = cli("grade", spec.KIT_ROOT / "solutions", "--device", "cuda")
    assert run.returncode == 2 and run.stdout.count("\n") == 1, run.stdout + run.stderr
    assert "CUDA could not start in the jail (" in run.stdout and "grade with --device cpu" in run.stdout


def test_a_class_with_every_kind_of_bad_byte_writes_every_row_and_the_report(tmp_path):
    """Issue 47: a folder name that is not UTF-8, an honest résumé.py saved in Latin-1 with a syntax error, and an
    error message holding a lone surrogate each stopped a class: grades.csv with its header only, no report."""
    folder = tmp_path / "class"
    folder.mkdir()
    masking = (spec.SOLUTIONS / "masking.py").read_text()
    for n in range(26):
        (folder / f"student{n:02}.py").write_text("x = 1\n")
    not_utf8 = folder / os.fsdecode(b"ren\xe9e")
    not_utf8.mkdir()
    (not_utf8 / "masking.py").write_text(masking)
    latin1 = folder / "carl"
    latin1.mkdir()
    (latin1 / "masking.py").write_text(masking)
    (latin1 / os.fsdecode("résumé.py".encode("latin-1"))).write_bytes("# résumé\nx = (\n".encode("latin-1"))
    for name, message in [("dora", "\\ud800 lone"), ("\u202eevil\x07", "\\x1b[2J\\u202e\\udcff reversed")]:
        (folder / name).mkdir()
        raising = f"raise RuntimeError('{message}')"
        (folder / name / "masking.py").write_text(
            masking.replace("return torch.ones(size, size, dtype=torch.bool, device=device).tril()", raising)
        )
    paths = dict(csv=tmp_path / "grades.csv", report=tmp_path / "class.html", reports=tmp_path / "reports")
    run = cli("grade-all", folder, "--csv", paths["csv"], "--report", paths["report"], "--json-dir", paths["reports"])
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["submission"]: row for row in csv.DictReader(paths["csv"].open(encoding="utf-8"))}
    assert len(rows) == 30
    assert float(rows["ren\\xe9e"]["masking"]) == float(rows["carl"]["masking"]) == 5
    assert float(rows["dora"]["masking"]) == float(rows["\\u202eevil\\x07"]["masking"]) < 5
    page = paths["report"].read_text(encoding="utf-8")
    assert all(html.escape(name, quote=False) in page for name in rows if not name.startswith("'"))
    assert len(list(paths["reports"].iterdir())) == 30

    run = cli("grade", folder / "dora", "--json", tmp_path / "dora.json")
    assert run.returncode == 0, run.stdout + run.stderr
    (masking_test,) = [t for t in json.loads((tmp_path / "dora.json").read_text())["tests"] if t["tags"] == ["masking"]]
    assert "RuntimeError: \\ud800 lone" in masking_test["output"]


# What a submission does to outlive its grading (tests/system/test_hostile.py has each at work), once its attention
# runs (the first component graded): a daemon (a double fork and a new session) and a child that ignores the signals a process is asked to end with.
DETACHING = """

import os
import signal
import time

_honest_attention = scaled_dot_product_attention
_started = []


def scaled_dot_product_attention(*args, **kwargs):
    if not _started:
        _started.append(True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        if os.fork() == 0:
            for ending in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(ending, signal.SIG_IGN)
            while True:
                time.sleep(1)
    return _honest_attention(*args, **kwargs)
"""


@pytest.mark.parametrize("ending", ["none", "SIGINT", "SIGTERM"], ids=["returns", "interrupted", "terminated"])
def test_no_process_outlives_grade_all(tmp_path, ending):
    """Issue 47: a grade-all stopped by SIGTERM left its workers, their bwraps and zygotes alive (the same after an
    interrupted `make test`, 38 minutes later). Two seconds after grade-all returns or is stopped, with ^C or SIGTERM,
    while its students' daemons run, no process it or they started is alive (support/survivors.py looks, as the
    subreaper every orphan is handed to). Two students, so that grade-all grades on a pool of two workers."""
    folder = tmp_path / "class"
    for name in ("ann", "bea"):
        (folder / name).mkdir(parents=True)
        (folder / name / "attention.py").write_text((spec.SOLUTIONS / "attention.py").read_text() + DETACHING)
    command = [sys.executable, "-m", "autograder", "grade-all", str(folder), "--workers", "2", "--time-limit", "5"]
    command += ["--accept-flagged", "ann", "--accept-flagged", "bea"]
    run = subprocess.run(
        [sys.executable, str(SUPPORT / "survivors.py"), ending, "--", *command],
        cwd=spec.KIT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert json.loads(run.stdout) == {}, run.stderr[-2000:]


def test_grade_on_a_folder_of_breakout_sheets_says_what_it_is_and_grades_them(tmp_path, capsys):
    """Issue 49: `grade breakout/` said every component was "not found" and "0 of 10 components pass". A second sheet of
    a part (a copy, the release's) is noted and not graded: the first, by path, is."""
    from autograder import __main__ as main
    from autograder.breakout import bank

    sheets, names = tmp_path / "breakout", ["01_attention.ipynb", "02_multihead.ipynb"]
    sheets.mkdir()
    for name in names:
        shutil.copy(spec.KIT_ROOT / "course" / "source" / "breakout" / name, sheets / name)
    shutil.copy(spec.KIT_ROOT / "course" / "release" / "breakout" / names[0], sheets / "copy of 01.ipynb")
    assert main.main(["grade", "--public", str(sheets)]) == 0
    assert "holds breakout quiz sheets only (3), no code to check" in capsys.readouterr().out
    assert main.main(["grade", str(sheets), "--json", str(tmp_path / "results.json")]) == 0
    out, points = capsys.readouterr().out, sum(p.points for p in bank.load() if f"{p.name}.ipynb" in names)
    assert "breakout sheets only (3), no code" in out and "not found" not in out
    assert not re.search(r"^(component|total)\s", out, re.M)  # no table of components
    assert re.search(rf"^breakout\s+{points:.2f} / {points:g}", out, re.M)
    assert "copy of 01.ipynb was not graded: a second sheet of 01_attention (01_attention.ipynb is graded)" in out
    results = json.loads((tmp_path / "results.json").read_text())
    assert [t["name"] for t in results["tests"]] == ["breakout"] and results["score"] == results["max_score"] == points
