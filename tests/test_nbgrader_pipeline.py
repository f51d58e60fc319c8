"""The instructor's pipeline with the real nbgrader, as the README walks through it, on three submissions.

alice completes every exercise; bob hands in the release untouched; carol has one bug (layer norm's eps
outside the square root), a correct feed-forward block that writes to stderr on every call, and her
notebooks ask for the `python3` kernel; dave is right, and works in the notebooks his own way: future
imports, helper cells, magics, debug prints, self-check lines in his exercise cells, quick tests.
"""
import csv
import shutil

import pytest

from autograder import bundle, course, notebook, spec
from autograder.grade import grade
from course_helpers import completed, install_test_kernel, nbgrader, new_course, notebook_student

BUG = ("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")
NOISE = ('        ### BEGIN SOLUTION\n        return self.dropout(',
         '        ### BEGIN SOLUTION\n        import sys, warnings\n        warnings.warn("feed-forward says hello")\n'
         '        print("and writes to stderr", file=sys.stderr)\n        return self.dropout(')


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    env = install_test_kernel(tmp_path_factory.mktemp("jupyter"))
    release = new_course(root, env, ["alice", "bob", "carol", "dave"])
    source, submitted = root / "source" / course.ASSIGNMENT, root / "submitted"
    completed(release, source, submitted / "alice" / course.ASSIGNMENT)
    shutil.copytree(release, submitted / "bob" / course.ASSIGNMENT)
    carol = completed(release, source, submitted / "carol" / course.ASSIGNMENT, [BUG, NOISE], kernel="python3")
    notebook_student(completed(release, source, submitted / "dave" / course.ASSIGNMENT))
    runs = {step: nbgrader(root, env, *step) for step in [
        ("autograde", course.ASSIGNMENT), ("generate_feedback", course.ASSIGNMENT), ("export",)]}
    return root, env, runs, carol


def grades(root):
    with open(root / "grades.csv") as file:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)}


def cell_scores(root, student):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(course.ASSIGNMENT, student)
        return {grade.name: grade.auto_score for notebook in submission.notebooks for grade in notebook.grades}


def test_pipeline_commands_succeed(pipeline):
    _, _, runs, _ = pipeline
    for step, run in runs.items():
        assert run.returncode == 0, f"nbgrader {' '.join(step)} failed:\n{run.stdout}{run.stderr}"


def test_export_gives_full_marks_zero_and_one_bugs_loss(pipeline):
    root, _, _, carol = pipeline
    exported = grades(root)
    assert exported["alice"] == exported["dave"] == spec.TOTAL_POINTS
    assert exported["bob"] == 0
    # The kit's own grader on carol's notebook says what the bug costs; nbgrader must agree exactly.
    kit = grade(carol / "03_feedforward_layernorm.ipynb", components=["layernorm"]).components[0].score
    assert 0 <= kit < spec.BY_ID["layernorm"].points
    assert exported["carol"] == pytest.approx(spec.TOTAL_POINTS - spec.BY_ID["layernorm"].points + kit)


def test_every_grade_cell_scores_what_its_component_scores(pipeline):
    root, _, _, _ = pipeline
    points = {f"grade-{c.id}": c.points for c in spec.COMPONENTS}
    assert cell_scores(root, "alice") == cell_scores(root, "dave") == points
    assert cell_scores(root, "bob") == dict.fromkeys(points, 0)
    carol = cell_scores(root, "carol")
    assert {k: v for k, v in carol.items() if k != "grade-layernorm"} == {k: v for k, v in points.items() if k != "grade-layernorm"}, \
        "a correct feed-forward that writes to stderr must keep its points"
    assert carol["grade-layernorm"] < points["grade-layernorm"]


@pytest.mark.parametrize("student, points", [("carol", "of 5 points"), ("bob", "0 of 5 points")])
def test_feedback_shows_the_graders_words_but_no_hidden_test_source(pipeline, student, points):
    """bob's cells score 0: a traceback there would quote the hidden test's lines in his feedback."""
    root, _, _, _ = pipeline
    html = (root / "feedback" / student / course.ASSIGNMENT / "03_feedforward_layernorm.html").read_text()
    assert "BEGIN HIDDEN TESTS" not in html and "grade_here" not in html
    assert "layernorm" in html and points in html, "the hidden cell's feedback should reach the student"


def test_autograde_again_needs_force(pipeline):
    root, env, _, _ = pipeline
    again = nbgrader(root, env, "autograde", course.ASSIGNMENT, "--student", "bob")
    assert again.returncode == 0 and "Skipping existing assignment" in again.stdout + again.stderr
    target = root / "submitted" / "bob" / course.ASSIGNMENT
    shutil.rmtree(target)
    shutil.copytree(root / "submitted" / "alice" / course.ASSIGNMENT, target)
    forced = nbgrader(root, env, "autograde", course.ASSIGNMENT, "--student", "bob", "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert sum(cell_scores(root, "bob").values()) == spec.TOTAL_POINTS


@pytest.mark.parametrize("environment", ["missing kernel", "kernel without the hidden suites"])
def test_a_broken_grading_environment_fails_loudly_and_records_no_zero(tmp_path, environment):
    env = install_test_kernel(tmp_path / "jupyter")
    root = tmp_path / "course"
    root.mkdir()
    release = new_course(root, env, ["dave"], notebooks=["01_attention.ipynb"])
    submission = completed(release, root / "source" / course.ASSIGNMENT, root / "submitted" / "dave" / course.ASSIGNMENT)
    if environment == "missing kernel":  # as when the course's kernel was never installed where nbgrader runs
        source = root / "source" / course.ASSIGNMENT / "01_attention.ipynb"
        source.write_text(source.read_text().replace(f'"name": "{course.KERNEL_NAME}"', '"name": "no-such-kernel"'))
        assert nbgrader(root, env, "generate_assignment", course.ASSIGNMENT, "--force").returncode == 0
        expected = "No such kernel named no-such-kernel"
    else:  # the kit's kernel name, but pointing at the student bundle: its grader has no hidden suites
        notebook.kernelspec(tmp_path / "jupyter" / "kernels", kit_root=bundle.build(tmp_path / "bundle"))
        expected = "THE KIT COULD NOT GRADE"
    assert submission.exists()
    run = nbgrader(root, env, "autograde", course.ASSIGNMENT)
    assert run.returncode != 0 and expected in run.stdout + run.stderr, run.stdout + run.stderr
    # Nothing is recorded as a zero: the cells await a grade, and the failed run says why.
    assert all(score is None for score in cell_scores(root, "dave").values())
