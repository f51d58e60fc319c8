"""nbgrader's autograde step, done by the kit's jailed grader: no student code runs in nbgrader's kernel.

course/nbgrader_config.py puts KitGrades where nbgrader's autograde runs each notebook in a Jupyter kernel
(Autograde.autograde_preprocessors, in place of Execute). KitGrades fills each test cell's output with the kit's
verdict, in the form nbgrader scores: partial credit as the cell's result, zero as text on stderr.

- The course notebooks: a student's whole submission (the folder in submitted/) is graded once, by the
  same grader as `python -m autograder grade`. On its first notebook, KitGrades grades every submission
  this run of nbgrader will autograde, on every core, with a progress line; nbgrader then goes on
  student by student, alone in writing the gradebook.
- The breakout quiz sheets: a sheet's code cells run in the jail, and its answers come back as data
  for the bank's checks.
"""

import contextlib
import os
import re
import weakref
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.converters import Autograde
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, Integer, List, Unicode

from autograder.course.jupyter import cell_text
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import KitFault, SubmissionError
from autograder.engine.contract.protocol import visible
from autograder.engine.judge import sandbox
from autograder.engine.judge.jail import JailUnavailable
from autograder.engine.judge.limits import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, DEFAULT_TOTAL_TIME, Limits
from autograder.engine.judge.progress_bar import Progress
from autograder.nbgrader.cells import NOTES, is_test_cell, source_notebook

# Each autograde run's _Run, keyed by the run's converter: a long-lived process (formgrader's server)
# never reuses an earlier run's grades.
_RUNS: "weakref.WeakKeyDictionary[object, _Run]" = weakref.WeakKeyDictionary()


class KitGrades(NbGraderPreprocessor):
    """Grade a notebook's test cells with the kit's jailed grader, without running the notebook."""

    time_limit = Float(DEFAULT_TIME_LIMIT, help="CPU seconds of student code per component").tag(config=True)
    memory_limit = Float(
        DEFAULT_MEMORY_LIMIT / 2**30, help="GiB a component's processes may use together beyond torch itself"
    ).tag(config=True)
    total_time = Float(DEFAULT_TOTAL_TIME, help="seconds of student code per submission").tag(config=True)
    device = Unicode("cpu", help="where student code runs: cpu or cuda").tag(config=True)
    workers = Integer(0, help="submissions graded at a time (0: one per core)").tag(config=True)
    accept_flagged = List(Unicode(), help="students whose flagged code an instructor has read and accepts").tag(
        config=True
    )
    unsafe_no_jail = Bool(False, help="run student code without the jail; every feedback says so").tag(config=True)

    @property
    def limits(self):
        return Limits.from_options(self.time_limit, self.memory_limit, self.total_time, self.unsafe_no_jail)

    def preprocess(self, nb, resources):
        ids = resources["nbgrader"]
        try:
            verdicts, notes = self._quiz(nb) if self._is_quiz(ids) else self._components(ids)
        except JailUnavailable as error:
            self.log.error("The kit cannot grade on this machine: %s", error)
            raise KitFault(str(error)) from None
        # The page's notes go once, under its first test cell: each once repeated them under every test cell of
        # every notebook (a scratch cell's note of notebook 1, ten times in seven pages).
        notes += [f"Note: {note}." for note in nb.metadata.get(NOTES, [])]
        for cell in filter(is_test_cell, nb.cells):
            meta = cell.metadata["nbgrader"]
            # nbgrader gives full points to a test cell with no output: every one must get a verdict.
            if meta.get("grade_id") not in verdicts:
                raise KitFault(
                    f"the test cell {meta.get('grade_id')!r} is not one the kit grades: "
                    "is this notebook from the kit's course?"
                )
            points, text = verdicts[meta["grade_id"]]
            cell.outputs = _outputs(points, "\n".join([text, *notes]))
            notes = []
        return nb, resources

    def _run(self):
        converter = self.parent.parent
        if not isinstance(converter, Autograde):
            raise KitFault("KitGrades runs as a step of nbgrader autograde (Autograde.autograde_preprocessors)")
        return converter, _RUNS.setdefault(converter, _Run())

    def _is_quiz(self, ids):
        """Whether the instructor's source notebook is a breakout quiz sheet: the student's copy may say anything."""
        return loader.QUIZ_METADATA in source_notebook(self._run()[0].coursedir, ids).metadata

    def _components(self, ids):
        """({grade cell id: (points, text)}, the notes for this notebook's page) from the grading of this student's
        whole submission."""
        converter, run = self._run()
        if run.graded_pages is None:
            source = converter.coursedir.format_path(converter.coursedir.source_directory, ".", ids["assignment"])
            cells = {
                path.name: {
                    c.metadata["nbgrader"]["grade_id"]
                    for c in nbformat.read(path, as_version=4).cells
                    if is_test_cell(c)
                }
                for path in Path(source).glob("*.ipynb")
            }
            run.graded_pages = {name for name, held in cells.items() if held}
            held = set().union(*cells.values())
            # The core's components, and each extension whose test cell the course holds (part 9's training, part
            # 10's generation): a course that releases parts 1 to 8 grades as before, and spends nothing on them.
            run.components = [c.id for c in spec.COMPONENTS] + [
                c.id for c in spec.EXTENSIONS if f"grade-{c.id}" in held
            ]
        folder = next(f for f in converter.assignments if _ids(converter, f) == (ids["assignment"], ids["student"]))
        if folder not in run.graded:
            # This one, and the later ones nbgrader will reach: it has already begun this one's folder.
            self._grade(
                run.graded,
                [folder] + [f for f in _pending(converter) if f != folder and f not in run.graded],
                converter,
                run.components,
            )
        report = run.graded[folder]
        if report.grader_failed:  # the kit's failure, not the student's: no zero is recorded
            self.log.error("The kit could not grade %s: %s", folder, report.problem)
            raise KitFault(f"the kit could not grade {folder}: {report.problem}")
        verdicts = {f"grade-{c.id}": (c.score, cell_text(c.id, c.score, c.feedback())) for c in report.scored}
        return verdicts, _page_notes(report.notes, f"{ids['notebook']}.ipynb", run.graded_pages)

    def _grade(self, graded, folders, converter, components):
        from autograder.engine.judge.pool import grade_each

        accepted = [f for f in folders if _ids(converter, f)[1] in self.accept_flagged]
        progress = Progress(len(folders), "graded in the jail")
        self.log.info("The kit grades %d submission(s)", len(folders))
        # Closed on the way out, interrupted too: the gradings under way stop at once (pool.grade_each).
        with contextlib.closing(
            grade_each(folders, self.device, self.limits, accepted, self.workers or None, components)
        ) as gradings:
            for folder, report in gradings:
                graded[folder] = report
                progress.step(_ids(converter, folder)[1])

    def _quiz(self, nb):
        """({check cell id: (points, text)}, no notes): the sheet's code cells run in the jail, its answers judged
        by the bank."""
        from autograder.breakout import bank, sheets

        converter, run = self._run()
        if run.sandbox is None:
            run.questions = {q.id: q for part in bank.load() for q in part.questions if q.autograded}
            run.sandbox = sandbox.Sandbox(self.device, self.limits)
            weakref.finalize(converter, run.sandbox.close)
        try:
            answers, problem = run.sandbox.answers(sheets.answer_cells(nb.cells), list(run.questions)), ""
        except SubmissionError as error:
            answers, problem = {}, f"\nYour answer cells could not be run: {error}"
        verdicts = {q.id: bank.cell_verdict(q, answers.get(q.id)) for q in run.questions.values()}
        return {
            f"check-{qid}": (points, text + (problem if not points else "")) for qid, (points, text) in verdicts.items()
        }, []


class _Run:
    """What one run of nbgrader autograde has done: its grades so far; the sandbox and bank its quiz sheets use."""

    def __init__(self):
        self.graded = {}  # {submission folder: Report}
        self.graded_pages = None  # the source's notebooks that hold a test cell, by file name
        self.components = None  # the ids of the components the source's test cells grade
        self.sandbox = None
        self.questions = {}


def _page_notes(notes, page, graded_pages):
    """The submission's notes that belong on this page (a notebook's file name): those about one of its cells, and
    those about no page that shows feedback (no notebook, or one with no test cell), on every page. A held
    component's reason is its own cell's."""
    about = [(NOTEBOOK_NOTE.match(note), note) for note in notes]
    return [
        visible(note, newlines=True)
        for match, note in about
        if match is None or match.group() == page or match.group() not in graded_pages
    ]


# A note about one notebook's cell begins with the notebook's file name (engine/contract/loader.py's cell_label).
NOTEBOOK_NOTE = re.compile(r"[^\s:,]+\.ipynb\b")


def _outputs(points, text):
    """A test cell's outputs as nbgrader scores them: text on stderr is 0 points, a result is partial credit."""
    if points <= 0:
        return [new_output("stream", name="stderr", text=text.rstrip() + "\n")]
    return [
        new_output("stream", name="stdout", text=text.rstrip() + "\n"),
        new_output("execute_result", data={"text/plain": f"{points:g}"}, execution_count=1),
    ]


def _pending(converter):
    """The submission folders this run of nbgrader will autograde, decided as its init_destination decides
    (a new submission, a newer one, or --force), without removing anything as that does. A wrong guess
    costs time only: a folder missed here is graded when nbgrader reaches it."""
    coursedir = converter.coursedir
    excluded = set(filter(None, coursedir.student_id_exclude.split(",")))
    for folder in sorted(converter.assignments):
        assignment, student = _ids(converter, folder)
        if student in excluded:
            continue
        destination = coursedir.format_path(coursedir.autograded_directory, student, assignment)
        new, old = coursedir.get_existing_timestamp(folder), coursedir.get_existing_timestamp(destination)
        if (
            converter.force
            or coursedir.notebook_id != "*"
            or not os.path.exists(destination)
            or (new and old and new > old)
        ):
            yield folder


def _ids(converter, folder):
    """(assignment, student) of a folder in submitted/, as nbgrader reads them from its path."""
    coursedir = converter.coursedir
    pattern = coursedir.format_path(
        coursedir.submitted_directory, "(?P<student_id>.*)", "(?P<assignment_id>.*)", escape=True
    )
    match = re.match(pattern, folder)
    assert match is not None, f"{folder} is not a submission folder of nbgrader's"
    return match["assignment_id"], match["student_id"]
