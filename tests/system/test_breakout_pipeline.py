"""The breakout quizzes through the real nbgrader, as the README's pipeline runs them, in both settings of the bank:
`breakout`, the committed sheets, whose short answers are for discussion (no points, the model answer shown once
written), and `breakout_graded`, the sheet of one part (with a short answer and the question cy gets wrong)
generated with grade_short_answers, whose short answers wait to be graded by hand.

ada answers every question as the bank does, in both; cy gets one choice question wrong, in both. ada's and cy's
graded short answers are then graded by hand through the gradebook, as formgrader would. di computes a numeric
answer rather than typing it; ed hands in the release untouched but for a cell that replaces the hidden half's
grading function (had it worked, he would score); flo's sheet for one part never stops. The sheets run in the
jail, never in a kernel; a kernel runs one of ada's sheets in each setting, as nbgrader validate does.
"""

import csv
import json
import re
import shutil
from html import escape

import pytest
from support.course_helpers import completed, execute, install_test_kernel, nbgrader, new_course, outputs

from autograder.breakout import bank, quiz_notebooks

ASSIGNMENT, GRADED = quiz_notebooks.ASSIGNMENT, f"{quiz_notebooks.ASSIGNMENT}_graded"
PARTS = bank.load()
QUESTIONS = [q for p in PARTS for q in p.questions]
TOTAL = sum(q.points for q in QUESTIONS)
WRONG = next(q for q in QUESTIONS if q.kind == "choice" and not q.several)
WRONG_LETTER = next(letter for letter in WRONG.options if letter not in WRONG.answer)
NUMERIC = next(q for q in QUESTIONS if q.kind == "numeric")
HANGING = next(q for q in QUESTIONS if q.autograded and q.part != WRONG.part and q.part != NUMERIC.part)
# One sheet is enough to show the other setting: its notebook is generated as the whole bank's would be.
GRADED_PARTS = [p for p in bank.load(grade_short_answers=True) if p.name == WRONG.part]
GRADED_QUESTIONS = [q for p in GRADED_PARTS for q in p.questions]
GRADED_TOTAL = sum(q.points for q in GRADED_QUESTIONS)
SHORT = [q.id for q in GRADED_QUESTIONS if q.kind == "short"]
DISCUSSED = next(q for q in QUESTIONS if q.discussion and q.id in SHORT)
# flo's loop costs it once; the honest sheets need a small part of it (CPU seconds, which a busy machine does not
# raise): this module passes with 1 s. Twice that, since a loop spends all of it.
TIME_LIMIT = 2
PATCH = (
    "import autograder.breakout.bank as bank\n"
    "bank.grade_answer = lambda part, question, namespace: print('Correct.')\n"
    "bank.judge = lambda question, answer: bank.Verdict('correct', 'Correct.', question.points)\n"
)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    env = install_test_kernel(tmp_path_factory.mktemp("jupyter"))
    release = new_course(root, env, ["ada", "cy", "di", "ed", "flo"], assignment=ASSIGNMENT)
    with open(root / "nbgrader_config.py", "a") as config:
        config.write(f"c.KitGrades.time_limit = {TIME_LIMIT}\n")
    source, submitted = root / "source" / ASSIGNMENT, root / "submitted"
    completed(release, source, submitted / "ada" / ASSIGNMENT)
    edit = (f"{WRONG.id} = {WRONG.written_answer()!r}", f"{WRONG.id} = {WRONG_LETTER!r}")
    completed(release, source, submitted / "cy" / ASSIGNMENT, [edit])
    value = NUMERIC.written_answer()
    computed = (f"{NUMERIC.id} = {value!r}", f"import math\n{NUMERIC.id} = math.fsum([{value!r} / 2] * 2)")
    completed(release, source, submitted / "di" / ASSIGNMENT, [computed])
    ed = shutil.copytree(release, submitted / "ed" / ASSIGNMENT)
    for sheet in ed.glob("*.ipynb"):
        nb = json.loads(sheet.read_text())
        nb["cells"].insert(
            0, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": PATCH}
        )
        sheet.write_text(json.dumps(nb))
    loop = (
        f"{HANGING.id} = {HANGING.written_answer()!r}",
        f"while True:\n    pass\n{HANGING.id} = {HANGING.written_answer()!r}",
    )
    completed(release, source, submitted / "flo" / ASSIGNMENT, [loop])
    # The same bank with its short answers graded, as an instructor who sets grade_short_answers generates it.
    graded = root / "source" / GRADED
    graded.mkdir()
    for path, text in quiz_notebooks.expected_sources(GRADED_PARTS).items():
        (graded / path.name).write_text(text)
    for step in [("db", "assignment", "add", GRADED), ("generate_assignment", GRADED, "--force")]:
        run = nbgrader(root, env, *step)
        assert run.returncode == 0, run.stdout + run.stderr
    completed(root / "release" / GRADED, graded, submitted / "ada" / GRADED)
    completed(root / "release" / GRADED, graded, submitted / "cy" / GRADED, [edit])
    # ada's graded sheet's feedback is released before anyone grades her short answers, as docs/TERM.md allows.
    steps = [
        ("autograde", ASSIGNMENT),
        ("autograde", GRADED),
        ("generate_feedback", ASSIGNMENT),
        ("generate_feedback", GRADED, "--student=ada"),
    ]
    for step in steps:
        run = nbgrader(root, env, *step)
        assert run.returncode == 0, run.stdout + run.stderr
    return root, env


def grades(root, student, assignment=ASSIGNMENT):
    """{grade_id: (auto score, manual score, needs manual grade)} of a student's quiz."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(assignment, student)
        return {
            g.name: (g.auto_score, g.manual_score, g.needs_manual_grade)
            for nb in submission.notebooks
            for g in nb.grades
        }


def grade_by_hand(root, student, score):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for question in GRADED_QUESTIONS:
            if not question.autograded:
                grade = gradebook.find_grade(f"answer-{question.id}", question.part, GRADED, student)
                grade.manual_score = score(question)
                grade.needs_manual_grade = False  # as formgrader's save does once a score is entered
        gradebook.db.commit()


def exported(root, env):
    """{(assignment, student): (score, points awaiting manual grading)} of a fresh nbgrader export."""
    run = nbgrader(root, env, "export")
    assert run.returncode == 0, run.stdout + run.stderr
    with open(root / "grades.csv") as file:
        return {
            (row["assignment"], row["student_id"]): (float(row["score"]), float(row["awaiting_manual_grading"]))
            for row in csv.DictReader(file)
        }


def test_every_question_has_one_grade_worth_its_points(pipeline):
    """A discussion question has none: nothing of it waits for a person."""
    root, _ = pipeline
    assert set(grades(root, "ada")) == {f"check-{q.id}" for q in QUESTIONS if q.autograded}
    graded = {f"check-{q.id}" if q.autograded else f"answer-{q.id}" for q in GRADED_QUESTIONS}
    assert set(grades(root, "ada", GRADED)) == graded and SHORT


def test_full_answers_score_every_autograded_point_and_await_only_the_graded_short_ones(pipeline):
    root, _ = pipeline
    for assignment, questions in ((ASSIGNMENT, QUESTIONS), (GRADED, GRADED_QUESTIONS)):
        ada = grades(root, "ada", assignment)
        for question in questions:
            if question.autograded:
                assert ada[f"check-{question.id}"][0] == question.points, question.id
            elif not question.discussion:
                assert ada[f"answer-{question.id}"][2], f"{question.id} should wait for a grader"
        by_hand = [q.id for q in questions if q.kind == "short" and not q.discussion]
        assert by_hand == ([] if assignment == ASSIGNMENT else SHORT), assignment


def test_a_discussion_shows_its_model_answer_once_written_and_both_settings_validate(pipeline, tmp_path):
    """In a kernel, as a student runs the sheet: the cell after a discussion answer shows the model answer and why
    (ada's sheet holds the model answer as her own); and nbgrader validate passes on a complete sheet, whichever
    the setting."""
    root, env = pipeline
    sheet = root / "submitted" / "ada" / ASSIGNMENT / f"{DISCUSSED.part}.ipynb"
    shown = "".join(o.get("text", "") for _, o in outputs(execute(sheet, env), "stream"))
    assert f"Model answer: {DISCUSSED.model_answer}" in shown and DISCUSSED.explanation in shown, shown
    for assignment in (ASSIGNMENT, GRADED):
        run = nbgrader(root, env, "validate", str(root / "submitted" / "ada" / assignment / f"{DISCUSSED.part}.ipynb"))
        assert "Success! Your notebook passes all the tests." in run.stdout, run.stdout + run.stderr


def test_blank_sheet_scores_zero_everywhere(pipeline):
    root, _ = pipeline
    ed = grades(root, "ed")
    assert all(auto == 0 and not needs for auto, _, needs in ed.values()), ed


def test_one_wrong_answer_loses_exactly_its_points(pipeline):
    root, _ = pipeline
    cy, ada = grades(root, "cy"), grades(root, "ada")
    assert cy[f"check-{WRONG.id}"][0] == 0
    assert {k: v for k, v in cy.items() if k != f"check-{WRONG.id}"} == {
        k: v for k, v in ada.items() if k != f"check-{WRONG.id}"
    }


def test_a_computed_answer_scores_as_a_typed_one(pipeline):
    root, _ = pipeline
    autograded = lambda student: {k: v[0] for k, v in grades(root, student).items() if k.startswith("check-")}  # noqa: E731
    assert autograded("di") == autograded("ada")


def test_a_sheet_that_patches_the_grader_scores_nothing(pipeline):
    root, _ = pipeline
    ed = grades(root, "ed")
    assert all(auto == 0 for name, (auto, _, _) in ed.items() if name.startswith("check-")), ed


def test_a_sheet_that_never_stops_scores_zero_in_its_part_with_the_reason(pipeline):
    root, _ = pipeline
    flo, ada = grades(root, "flo"), grades(root, "ada")
    in_part = {f"check-{q.id}" for q in QUESTIONS if q.part == HANGING.part and q.autograded}
    assert all(flo[name][0] == 0 for name in in_part)
    assert {k: v for k, v in flo.items() if k not in in_part} == {k: v for k, v in ada.items() if k not in in_part}
    html = (root / "feedback" / "flo" / ASSIGNMENT / f"{HANGING.part}.html").read_text()
    assert f"Your answer cells could not be run: your code ran past the time limit of {TIME_LIMIT:g} s" in html


def test_export_gives_full_marks_zero_and_one_loss_and_what_waits_for_hand_grading(pipeline):
    root, env = pipeline
    scores = exported(root, env)
    by_default = {k: scores[ASSIGNMENT, k] for k in ("ada", "ed", "cy")}
    assert by_default == {"ada": (TOTAL, 0), "ed": (0, 0), "cy": (TOTAL - WRONG.points, 0)}, scores
    # Graded short answers: their points are said to wait for a person, not silently missing from the score.
    short = sum(q.points for q in GRADED_QUESTIONS if not q.autograded)
    autograded = sum(q.points for q in GRADED_QUESTIONS if q.autograded)
    assert short > 0 and autograded + short == GRADED_TOTAL
    assert (scores[GRADED, "ada"], scores[GRADED, "cy"]) == ((autograded, short), (autograded - WRONG.points, short))
    grade_by_hand(root, "ada", lambda q: q.points)
    grade_by_hand(root, "cy", lambda q: q.points)
    scores = exported(root, env)
    assert (scores[GRADED, "ada"], scores[GRADED, "cy"]) == ((GRADED_TOTAL, 0), (GRADED_TOTAL - WRONG.points, 0))


def test_feedback_explains_without_showing_hidden_tests(pipeline):
    root, _ = pipeline
    html = (root / "feedback" / "cy" / ASSIGNMENT / f"{WRONG.part}.html").read_text()
    assert (
        "BEGIN HIDDEN TESTS" not in html and "grade_answer" not in html and "----&gt;" not in html
    )  # the line marker of an IPython traceback
    assert f"the answer is {WRONG.key()}" in html and WRONG.explanation.split()[0] in html


def test_feedback_before_hand_grading_marks_each_short_answer_to_be_graded_and_wraps_explanations_once(pipeline):
    """nbgrader's page read "Score: 0.0 / 2.0" under an answer no one had graded yet, and an explanation broke at
    the question file's line ends and again at the page's edge."""
    root, _ = pipeline
    html = (root / "feedback" / "ada" / GRADED / f"{WRONG.part}.html").read_text()
    for question in GRADED_QUESTIONS:
        if question.kind == "short":
            heading = re.search(
                rf'<a name="answer-{question.id}"></a><div class="panel-heading">(.*?)</div>', html, re.S
            )
            assert heading and f"Score: to be graded / {float(question.points)}" in heading[1], question.id
    assert html.count("to be graded /") == 2 * len(SHORT)  # each in the list atop the page, and in its heading
    lines = WRONG.explanation.splitlines()
    assert len(lines) > 1 and escape(f"{lines[0]} {lines[1]}", quote=False) in html
