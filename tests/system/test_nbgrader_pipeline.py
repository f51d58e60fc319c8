"""The instructor's pipeline with the real nbgrader, as the README walks through it.

alice completes every exercise; bob hands in the release untouched; carol has one bug (layer norm's eps
outside the square root), a correct feed-forward block that warns and prints on every call, and her
notebooks ask for the `python3` kernel; dave is right, and works in the notebooks his own way: future
imports, helper cells, magics, debug prints, self-check lines in his exercise cells, quick tests.
The rest attack or break the pipeline: eve hands in the release with a cell that replaces the grader's hidden-cell
function and writes beside the gradebook, and an `autograder/` package beside her notebooks (under a kernel, the
hidden cell's `python -m autograder` ran it): either attack that worked would give her points. gina's notebook never
stops; hank is right but late, and has a scratch cell that would kill its process (it is not run, and costs nothing);
kim's attention is right but imports ctypes (held for review). dan is right and tampers with nbgrader's cells: he
pastes a copy of a hidden test cell (Jupyter's copy and paste: same metadata, a new cell id), which once made
nbgrader stop for everyone after him, and renames another, raising its points.

alice and hank hand in through nbgrader's exchange, as docs/TERM.md walks through it: the instructor releases the
assignment, each fetches it into a home of their own, completes it and submits it; the instructor collects,
autogrades, releases the feedback, which alice fetches, and exports grades.csv and the LMS's gradebook. The due date
was a day and two hours ago: hank's submission is two days begun late, alice's extension of two days covers hers.
"""

import csv
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import uuid
from html import escape as html_escape

import pytest
from support.course_helpers import (
    NOTEBOOK_COMPONENTS,
    NOTEBOOK_POINTS,
    cell_scores,
    completed,
    install_test_kernel,
    nbgrader,
    new_course,
    notebook_student,
)
from support.helpers import First

from autograder.course import notebooks
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.grade import grade

BUG = mistakes.BY_ID["layernorm/eps-outside-the-square-root"].edits[0]
NOISE = First("FeedForward", 'import warnings\nwarnings.warn("feed-forward says hello")\nprint("and writes to stdout")')
HANG = ("def scaled_dot_product_attention(", "while True:\n    pass\n\n\ndef scaled_dot_product_attention(")
CRASH = ("class LayerNorm(", "import os\nos._exit(1)\n\n\nclass LayerNorm(")
FLAGGED = First("scaled_dot_product_attention", "import ctypes")
# The time limit for the pipeline: gina's loop costs it once, and the others need a small part of it (a
# component's CPU seconds, which a busy machine does not raise; the whole course scores full marks with 1 s:
# `python -m autograder grade course/source/transformer --time-limit 1`). Twice that, since a loop spends all of it.
TIME_LIMIT = 2
# A day and two hours before the fixture starts: a submission made while it runs is two days begun late, whatever
# the machine's load (the fixture would need 22 hours to make it three).
DUE = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1, hours=2)).strftime("%Y-%m-%d %H:%M:%S UTC")
PERCENT_PER_DAY, EXTENSION_DAYS = 10, 2
# Every graded cell of the course: the core's, and part 9's training (an extension: its points beyond the core's 100).
POINTS = {f"grade-{c.id}": c.points for c in NOTEBOOK_COMPONENTS}
# A perfect score by every route that runs code outside the kit's grader: the hidden cell's function,
# a notebook's view of the kit, the command the hidden cell ran.
PATCH = """import json, os, sys
import autograder.course.jupyter as kit
kit.grade_here = lambda component, notebook: 15
globals()["grade_here"] = kit.grade_here
open({pwned!r}, "w").write("eve was here")
"""
FAKE_KIT = {
    "__init__.py": "",
    "notebook.py": "def grade_here(component, notebook):\n    print(component, 'full marks')\n    return 15\n",
    "__main__.py": (
        "import json, sys\nargs = sys.argv\nreport = {'tests': [{'tags': [args[args.index('--component') + 1]], "
        "'score': 15, 'output': 'full marks'}]}\nopen(args[args.index('--json') + 1], 'w').write(json.dumps(report))\n"
    ),
}
# Each student costs the fixture seconds (a grading, ten feedback pages): one student holds what one test reads.
STUDENTS = ["alice", "bob", "carol", "dan", "dave", "eve", "gina", "hank", "kim"]
ZERO = ["bob", "eve", "gina"]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    env = install_test_kernel(tmp_path_factory.mktemp("jupyter"))
    release = new_course(root, env, STUDENTS, duedate=DUE)
    exchange = tmp_path_factory.mktemp("exchange")
    with open(root / "nbgrader_config.py", "a") as config:
        config.write(
            f"c.KitGrades.time_limit = {TIME_LIMIT}\nc.KitLatePenalty.percent_per_day = {PERCENT_PER_DAY}\n"
            f"c.KitLatePenalty.extensions = {{'alice': {EXTENSION_DAYS}}}\n"
            + term_config("instructor").replace(EXCHANGE, str(exchange))
        )
    source, submitted = root / "source" / notebooks.ASSIGNMENT, root / "submitted"
    runs = {
        ("release_assignment", notebooks.ASSIGNMENT): nbgrader(root, env, "release_assignment", notebooks.ASSIGNMENT)
    }
    homes = {student: home(root, student) for student in ("alice", "hank")}
    for home_ in homes.values():
        (home_ / ".jupyter").mkdir(parents=True)
        (home_ / ".jupyter" / "nbgrader_config.py").write_text(term_config("student").replace(EXCHANGE, str(exchange)))
    # Each nbgrader command costs seconds to start: the students' own, which never open the gradebook, run together.
    runs |= finished(
        {
            (s, "fetch_assignment"): as_student(home_, env, "fetch_assignment", notebooks.ASSIGNMENT)
            for s, home_ in homes.items()
        }
    )
    completed(homes["alice"] / notebooks.ASSIGNMENT, source, homes["alice"] / notebooks.ASSIGNMENT)
    completed(homes["hank"] / notebooks.ASSIGNMENT, source, homes["hank"] / notebooks.ASSIGNMENT, [CRASH])
    submits = {
        (s, "submit"): as_student(h, env, "submit", notebooks.ASSIGNMENT, f"--student={s}") for s, h in homes.items()
    }
    shutil.copytree(release, submitted / "bob" / notebooks.ASSIGNMENT)
    carol = completed(release, source, submitted / "carol" / notebooks.ASSIGNMENT, [BUG, NOISE], kernel="python3")
    add_cell(carol / "03_feedforward_layernorm.ipynb", SCRATCH)
    notebook_student(completed(release, source, submitted / "dave" / notebooks.ASSIGNMENT))
    eve = shutil.copytree(release, submitted / "eve" / notebooks.ASSIGNMENT)
    add_cell(eve / "01_attention.ipynb", PATCH.format(pwned=str(root / "pwned")))
    (eve / "autograder").mkdir()
    for name, text in FAKE_KIT.items():
        (eve / "autograder" / name).write_text(text)
    completed(release, source, submitted / "gina" / notebooks.ASSIGNMENT, [HANG])
    completed(release, source, submitted / "kim" / notebooks.ASSIGNMENT, [FLAGGED])
    tamper(
        completed(release, source, submitted / "dan" / notebooks.ASSIGNMENT) / "01_attention.ipynb",
        paste="grade-attention",
        rename="grade-masking",
        forge="grade-attention",
    )
    runs |= finished(submits)
    steps = [
        ("collect", notebooks.ASSIGNMENT),
        ("autograde", notebooks.ASSIGNMENT),
        ("generate_feedback", notebooks.ASSIGNMENT),
        # The others' notebooks were put in submitted/ by hand, with no time of submission, which release_feedback needs.
        ("release_feedback", notebooks.ASSIGNMENT, "--student=alice"),
        ("export",),
        ("export", "--exporter=autograder.nbgrader.export.KitLmsExport", "--to=lms.csv"),
    ]
    runs |= {step: nbgrader(root, env, *step) for step in steps}
    runs |= finished(
        {
            ("alice", "fetch_feedback"): as_student(
                homes["alice"], env, "fetch_feedback", notebooks.ASSIGNMENT, "--student=alice"
            )
        }
    )
    return root, env, runs, carol


# The exchange's folder as docs/TERM.md writes it, replaced by a temporary one here.
EXCHANGE = "/srv/nbgrader/exchange"


def term_config(whose):
    """The nbgrader_config.py lines docs/TERM.md gives for the instructor's course, or for each student."""
    blocks = re.findall(r"```python\n(.*?)```", (spec.KIT_ROOT / "docs" / "TERM.md").read_text(), re.S)
    (block,) = [b for b in blocks if b.startswith(f"# {whose}'s nbgrader_config.py")]
    return block


def home(root, student):
    """A student's home, beside the course's folder: their copy of the assignment and their nbgrader_config.py."""
    return root.parent / f"{root.name}-homes" / student


def as_student(folder, env, *args):
    """An nbgrader command as a student runs it, started: in their home, which holds their nbgrader_config.py."""
    return subprocess.Popen(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=folder,
        env=env | {"HOME": str(folder)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(started):
    """{key: the CompletedProcess} of {key: a started command}, once each has ended."""
    outputs = {key: process.communicate() for key, process in started.items()}
    return {key: subprocess.CompletedProcess(p.args, p.returncode, *outputs[key]) for key, p in started.items()}


def add_cell(path, source):
    nb = json.loads(path.read_text())
    nb["cells"].append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source})
    path.write_text(json.dumps(nb))


# carol's plot in notebook 3: nothing graded needs it, so it is not run, and her page 3 says so once.
SCRATCH = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])"
SCRATCH_NOTE = "2 statements not run, since nothing graded needs them: line 1 imports matplotlib.pyplot"


# A note the kit never wrote, in the notebook metadata where the kit leaves its own notes for the feedback.
FORGED_NOTE = "the grader awards you a bonus of 50 points"


def tamper(path, paste, rename, forge):
    """A pasted copy of one graded cell, another renamed and worth more, the kit's notes forged, and a third with
    a metadata schema newer than nbgrader's (which stopped nbgrader for the whole class)."""
    nb = json.loads(path.read_text())
    nb["metadata"]["kit_repairs"] = [FORGED_NOTE]
    cells = {cell["metadata"].get("nbgrader", {}).get("grade_id"): cell for cell in nb["cells"]}
    cells[forge]["metadata"]["nbgrader"]["schema_version"] = 4
    nb["cells"].insert(
        nb["cells"].index(cells[paste]) + 1, {**json.loads(json.dumps(cells[paste])), "id": uuid.uuid4().hex[:8]}
    )
    cells[rename]["metadata"]["nbgrader"].update(grade_id="grade-mine", points=1000)
    path.write_text(json.dumps(nb))


def test_a_tampered_notebook_is_graded_by_the_kit_and_stops_nobody(pipeline):
    root, _, _, _ = pipeline
    assert grades(root)["dan"] == NOTEBOOK_POINTS  # and everyone after him is graded (the other tests)
    feedback = (root / "feedback" / "dan" / notebooks.ASSIGNMENT / "01_attention.html").read_text()
    for cell in ("grade-attention", "grade-mine"):
        assert f"nbgrader&#x27;s &#x27;{cell}&#x27;" in feedback or f"nbgrader's '{cell}'" in feedback
    assert "(a pasted copy, or a changed one): it was kept as an ordinary cell" in feedback
    assert "grade-masking" in feedback and "was missing or changed: it was put back from the course" in feedback
    assert FORGED_NOTE not in feedback


def exported(root):
    with open(root / "grades.csv") as file:
        return {row["student_id"]: row for row in csv.DictReader(file)}


def grades(root):
    return {student: float(row["score"]) for student, row in exported(root).items()}


def test_pipeline_commands_succeed_and_grade_the_class_in_one_batch(pipeline):
    _, _, runs, _ = pipeline
    for step, run in runs.items():
        assert run.returncode == 0, f"nbgrader {' '.join(step)} failed:\n{run.stdout}{run.stderr}"
    log = runs[("autograde", notebooks.ASSIGNMENT)].stderr
    assert (
        f"The kit grades {len(STUDENTS)} submission(s)" in log
        and f"graded in the jail {len(STUDENTS)}/{len(STUDENTS)}" in log
    )
    # No noise for the instructor to read past: every untouched hidden test cell once logged a changed
    # checksum, and every student three warnings of nbgrader's gradebook under SQLAlchemy 2.
    assert "Attribute 'checksum'" not in log and "SAWarning" not in log, log
    feedback = runs[("generate_feedback", notebooks.ASSIGNMENT)].stderr
    assert "not recognized" not in feedback, feedback


def test_export_gives_full_marks_zero_and_one_bugs_loss(pipeline, sandbox):
    root, _, _, carol = pipeline
    exported = grades(root)
    assert exported["alice"] == exported["dave"] == NOTEBOOK_POINTS
    assert all(exported[student] == 0 for student in ZERO), exported
    # The kit's own grader on carol's notebook says what the bug costs; nbgrader must agree exactly.
    kit = grade(carol / "03_feedforward_layernorm.ipynb", components=["layernorm"], sandbox=sandbox).components[0].score
    assert 0 <= kit < spec.BY_ID["layernorm"].points
    assert exported["carol"] == pytest.approx(NOTEBOOK_POINTS - spec.BY_ID["layernorm"].points + kit)


def test_the_exchange_hands_out_and_collects_and_a_late_submission_loses_its_share_per_day_begun(pipeline):
    """alice and hank fetched and submitted through the exchange; hank, two days begun late, loses twice the share
    per day; alice, as late, is on time with her extension."""
    root, _, runs, _ = pipeline
    rows = exported(root)
    hank, alice = rows["hank"], rows["alice"]
    assert hank["timestamp"] and alice["timestamp"], "collect brings each submission's time from the exchange"
    assert float(hank["raw_score"]) == NOTEBOOK_POINTS
    assert float(hank["late_submission_penalty"]) == NOTEBOOK_POINTS * 2 * PERCENT_PER_DAY / 100
    assert float(hank["score"]) == NOTEBOOK_POINTS * (1 - 2 * PERCENT_PER_DAY / 100)
    assert float(alice["late_submission_penalty"]) == 0 and float(alice["score"]) == NOTEBOOK_POINTS
    fetched = list((home(root, "alice") / notebooks.ASSIGNMENT / "feedback").glob("*/01_attention.html"))
    assert len(fetched) == 1 and "attention: 10 of 10 points" in fetched[0].read_text(), runs


def test_the_lms_gradebook_gives_each_student_the_score_of_grades_csv(pipeline):
    root, _, _, _ = pipeline
    with open(root / "lms.csv") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["Student", "SIS Login ID", "Section", notebooks.ASSIGNMENT]
    assert {row[1]: float(row[3]) for row in rows[1:]} == grades(root)


def test_every_grade_cell_scores_what_its_component_scores(pipeline):
    root, _, _, _ = pipeline
    points = POINTS
    assert cell_scores(root, "alice") == cell_scores(root, "dave") == points
    for student in ZERO:
        assert cell_scores(root, student) == dict.fromkeys(points, 0), student
    carol = cell_scores(root, "carol")
    assert {k: v for k, v in carol.items() if k != "grade-layernorm"} == {
        k: v for k, v in points.items() if k != "grade-layernorm"
    }, "a correct feed-forward that warns and prints must keep its points"
    assert carol["grade-layernorm"] < points["grade-layernorm"]


def test_no_student_code_runs_outside_the_jail(pipeline):
    """eve's cell would have written beside the gradebook from nbgrader's kernel; in the jail the course is not there.
    (Her zero, in the tests above, says that neither her cell nor her package graded her.)"""
    root, _, _, _ = pipeline
    assert not (root / "pwned").exists()


def test_a_notebook_that_hangs_scores_zero_with_the_reason(pipeline):
    root, _, _, _ = pipeline
    html = (root / "feedback" / "gina" / notebooks.ASSIGNMENT / "02_multihead.html").read_text()
    assert "multihead: 0 of 15 points" in html and f"ran past the time limit of {TIME_LIMIT:g} s while loading" in html


def test_a_scratch_cell_outside_the_policy_is_not_run_and_costs_nothing(pipeline):
    """hank's cell calls os._exit at the top of a notebook: it once killed every component's process."""
    root, _, _, _ = pipeline
    assert cell_scores(root, "hank") == POINTS
    html = (root / "feedback" / "hank" / notebooks.ASSIGNMENT / "03_feedforward_layernorm.html").read_text()
    assert "2 statements not run, since nothing graded needs them: line 1 imports os" in html


@pytest.mark.parametrize("student, points", [("carol", "of 5 points"), ("bob", "0 of 5 points")])
def test_feedback_shows_the_graders_words_but_no_hidden_test_source(pipeline, student, points):
    """bob's cells score 0: a traceback there would quote the hidden test's lines in his feedback."""
    root, _, _, _ = pipeline
    html = (root / "feedback" / student / notebooks.ASSIGNMENT / "03_feedforward_layernorm.html").read_text()
    assert "BEGIN HIDDEN TESTS" not in html and "grade_here" not in html
    assert "layernorm" in html and points in html, "the hidden cell's feedback should reach the student"
    if student == "carol":  # her bug is in the catalog, so her feedback names it, set apart from the text around
        likely = html_escape(LIKELY_MISTAKE + mistakes.BY_ID["layernorm/eps-outside-the-square-root"].says, quote=False)
        assert f'<span class="kit-likely">{likely}</span>' in html
    # The partial-credit number is nbgrader's, not the student's to read under the text (the header shows the
    # score); long feedback lines wrap at spaces, never inside a number or a word.
    assert "Out[" not in html and '<pre class="kit-feedback">' in html
    assert "white-space: pre-wrap; word-break: normal; overflow-wrap: normal;" in html


def test_flagged_code_scores_zero_with_the_reasons_until_the_instructor_accepts_it(pipeline):
    root, env, _, _ = pipeline
    points = POINTS
    assert cell_scores(root, "kim") == points | {"grade-attention": 0}
    html = (root / "feedback" / "kim" / notebooks.ASSIGNMENT / "01_attention.html").read_text()
    assert "attention: 0 of 10 points" in html and "HELD for review" in html and "ctypes" in html
    accepted = nbgrader(
        root, env, "autograde", notebooks.ASSIGNMENT, "--student", "kim", "--force", "--KitGrades.accept_flagged=kim"
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "The kit grades 1 submission(s)" in accepted.stderr  # forced, one student is graded again, alone
    assert cell_scores(root, "kim") == points
    # docs/TERM.md's regrading of one student goes on with their feedback, and no one else's.
    others = {p: p.stat().st_mtime_ns for p in (root / "feedback").glob(f"[!k]*/{notebooks.ASSIGNMENT}/*.html")}
    again = nbgrader(root, env, "generate_feedback", notebooks.ASSIGNMENT, "--student", "kim", "--force")
    assert again.returncode == 0, again.stdout + again.stderr
    regraded = (root / "feedback" / "kim" / notebooks.ASSIGNMENT / "01_attention.html").read_text()
    assert "attention: 10 of 10 points" in regraded and "HELD for review (accepted by the instructor" in regraded
    assert others and others == {p: p.stat().st_mtime_ns for p in others}


def test_autograde_again_grades_only_a_new_student_and_regrades_none_unless_forced(pipeline):
    """One run after the first (each costs seconds): bob's work, replaced by a complete copy, is skipped, and jack,
    added after the first run, is graded alone. (kim's acceptance, above, is a forced regrade of one student.)"""
    root, env, _, _ = pipeline
    release, source = root / "release" / notebooks.ASSIGNMENT, root / "source" / notebooks.ASSIGNMENT
    bob = root / "submitted" / "bob" / notebooks.ASSIGNMENT
    shutil.rmtree(bob)
    shutil.copytree(root / "submitted" / "alice" / notebooks.ASSIGNMENT, bob)
    completed(release, source, root / "submitted" / "jack" / notebooks.ASSIGNMENT)
    run = nbgrader(root, env, "autograde", notebooks.ASSIGNMENT)
    assert run.returncode == 0 and "Skipping existing assignment" in run.stdout + run.stderr, run.stdout + run.stderr
    assert "The kit grades 1 submission(s)" in run.stderr and "graded in the jail 1/1: jack" in run.stderr
    assert sum(cell_scores(root, "jack").values()) == NOTEBOOK_POINTS
    assert sum(cell_scores(root, "alice").values()) == NOTEBOOK_POINTS
    assert sum(cell_scores(root, "bob").values()) == 0


def test_feedback_html_escapes_what_a_student_wrote_and_marks_the_likely_mistake():
    from nbformat.v4 import new_output

    from autograder.nbgrader import feedback

    text = "3/5 tests passed.\nLikely mistake: <b>x</b>\n- test_y: 1 of 2 cases fail; <script>\nHint: use <i>z</i>\n"
    shown = feedback._as_html(new_output("stream", name="stdout", text=text))
    page = shown.data["text/html"]
    assert "<b>" not in page and "<script>" not in page and "&lt;script&gt;" in page
    assert '<span class="kit-likely">Likely mistake: &lt;b&gt;x&lt;/b&gt;</span>' in page
    assert '<span class="kit-hint">Hint: use &lt;i&gt;z&lt;/i&gt;</span>' in page
    assert shown.data["text/plain"] == text


def test_a_note_is_shown_once_on_the_page_of_its_notebook_and_on_no_other(pipeline):
    """carol's scratch cell in notebook 3 was once noted under every test cell of every notebook."""
    root, _, _, _ = pipeline
    pages = {p.name: p.read_text() for p in (root / "feedback" / "carol" / notebooks.ASSIGNMENT).glob("*.html")}
    assert {name: page.count(SCRATCH_NOTE) for name, page in pages.items() if SCRATCH_NOTE in page} == {
        "03_feedforward_layernorm.html": 1
    }


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_feedback_page_reads_offline_in_a_browser(pipeline, tmp_path):
    """carol's page 3 as chromium lays it out, with no network: her feedback's text never breaks inside a word or a
    number (the page's own rules for output text once broke 5e-05 as 5e-0 / 5), her likely mistake has a background
    of its own, the layer norm's formula is drawn (it was raw TeX without the CDN's MathJax), the workload table is
    ruled, and her note is there once. A script added to a copy reads the computed styles into the DOM that chromium
    dumps; a screenshot of the page is left beside it (FEEDBACK_SCREENSHOTS names a folder to keep it in)."""
    root, _, _, _ = pipeline
    page = (root / "feedback" / "carol" / notebooks.ASSIGNMENT / "03_feedforward_layernorm.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.replace(
            "</body>",
            "<script>const pre = document.querySelector('pre.kit-feedback'), likely = pre.querySelector('.kit-likely');"
            " const style = getComputedStyle(pre), mark = getComputedStyle(likely), b = document.body;"
            " b.setAttribute('data-breaks', style.wordBreak + '/' + style.overflowWrap);"
            " b.setAttribute('data-likely', mark.backgroundColor + '/' + mark.display);"
            " const math = [...document.querySelectorAll('img.kit-math')];"
            " b.setAttribute('data-math', math.length + '/' + math.filter(i => i.complete && i.naturalWidth > 0).length);"
            " b.setAttribute('data-tex', document.body.innerText.includes('\\\\frac'));"
            " const td = document.querySelector('div.text_cell_render td');"
            " b.setAttribute('data-table', getComputedStyle(td).borderTopWidth + '/' + getComputedStyle(td).paddingLeft);"
            "</script></body>",
        )
    )
    browser = [shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9"]
    run = subprocess.run([*browser, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    dom = run.stdout
    assert 'data-breaks="normal/normal"' in dom and 'data-likely="rgb(255, 243, 205)/block"' in dom, run.stderr[-2000:]
    drawn = re.search(r'data-math="(\d+)/(\d+)"', dom)
    assert drawn and int(drawn[1]) >= 1 and drawn[1] == drawn[2], dom[-3000:]
    assert 'data-tex="false"' in dom and 'data-table="1px/10px"' in dom
    assert page.count(SCRATCH_NOTE) == 1 and LIKELY_MISTAKE in page
    shots = pathlib.Path(os.environ.get("FEEDBACK_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "carol_03_feedforward_layernorm.png"
    source = tmp_path / "page.html"
    source.write_text(page)
    subprocess.run(
        [*browser, "--hide-scrollbars", "--window-size=1200,4000", f"--screenshot={shot}", source.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
