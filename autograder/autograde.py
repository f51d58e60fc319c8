"""nbgrader's autograde step, done by the kit's jailed grader: no student code runs in nbgrader's kernel.

course/nbgrader_config.py puts KitGrades where nbgrader's autograde runs each notebook in a Jupyter
kernel (Autograde.autograde_preprocessors, in place of Execute). nbgrader keeps everything else: it
copies and sanitizes the notebooks (the locked and hidden cells come back from the source), records
the scores, applies late penalties, writes autograded/ and the gradebook, and later the feedback and
the export. KitGrades fills each test cell's output with the kit's verdict, in the form nbgrader scores:
partial credit as the cell's result, zero as text on stderr.

- The course notebooks: a student's whole submission (the folder in submitted/) is graded once, by the
  same grader as `python -m autograder grade`. On its first notebook, KitGrades grades every submission
  this run of nbgrader will autograde, on every core, with a progress line; nbgrader then goes on
  student by student, alone in writing the gradebook.
- The breakout quiz sheets: a sheet's code cells run in the jail, and its answers come back as data
  for the bank's checks.
"""

import copy
import csv
import html
import os
import re
import uuid
import weakref

import nbformat
from nbformat.v4 import new_output
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde
from nbgrader.plugins import CsvExportPlugin
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import Bool, Float, Integer, List, Unicode

from autograder.course.jupyter import KitError, cell_text
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import SubmissionError
from autograder.engine.contract.protocol import visible
from autograder.engine.judge import sandbox
from autograder.engine.judge.diagnosis import PREFIX as LIKELY
from autograder.engine.judge.hints import PREFIX as HINT
from autograder.engine.judge.jail import JailUnavailable
from autograder.engine.judge.limits import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT, DEFAULT_TOTAL_TIME, Limits
from autograder.engine.judge.progress import Progress

# Where KitSanitize leaves its notes for KitGrades: the notebook's own metadata, which nbgrader clears after.
NOTES = "kit_repairs"

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
            verdicts = self._quiz(nb) if self._is_quiz(ids) else self._components(ids)
        except JailUnavailable as error:
            self.log.error("The kit cannot grade on this machine: %s", error)
            raise KitError(str(error)) from None
        for cell in filter(_is_test_cell, nb.cells):
            meta = cell.metadata["nbgrader"]
            # nbgrader gives full points to a test cell with no output: every one must get a verdict.
            if meta.get("grade_id") not in verdicts:
                raise KitError(
                    f"the test cell {meta.get('grade_id')!r} is not one the kit grades: "
                    "is this notebook from the kit's course?"
                )
            points, text = verdicts[meta["grade_id"]]
            repairs = "".join(f"\nNote: {note}." for note in nb.metadata.get(NOTES, []))
            cell.outputs = _outputs(points, text + repairs)
        return nb, resources

    def _run(self):
        converter = self.parent.parent
        if not isinstance(converter, Autograde):
            raise KitError("KitGrades runs as a step of nbgrader autograde (Autograde.autograde_preprocessors)")
        return converter, _RUNS.setdefault(converter, _Run())

    def _is_quiz(self, ids):
        """Whether the instructor's source notebook is a breakout quiz sheet: the student's copy may say anything."""
        return loader.QUIZ_METADATA in _source_notebook(self._run()[0].coursedir, ids).metadata

    def _components(self, ids):
        """{grade cell id: (points, text)} from the grading of this student's whole submission."""
        converter, run = self._run()
        folder = next(f for f in converter.assignments if _ids(converter, f) == (ids["assignment"], ids["student"]))
        if folder not in run.graded:
            # This one, and the later ones nbgrader will reach: it has already begun this one's folder.
            self._grade(
                run.graded,
                [folder] + [f for f in _pending(converter) if f != folder and f not in run.graded],
                converter,
            )
        report = run.graded[folder]
        if report.grader_failed:  # the kit's failure, not the student's: no zero is recorded
            self.log.error("The kit could not grade %s: %s", folder, report.problem)
            raise KitError(f"the kit could not grade {folder}: {report.problem}")
        return {
            f"grade-{c.id}": (c.score, cell_text(c.id, c.score, c.feedback(), report.summary())) for c in report.scored
        }

    def _grade(self, graded, folders, converter):
        from autograder.engine.judge.pool import grade_each

        accepted = [f for f in folders if _ids(converter, f)[1] in self.accept_flagged]
        progress = Progress(len(folders), "graded in the jail")
        components = [c.id for c in spec.COMPONENTS]
        self.log.info("The kit grades %d submission(s)", len(folders))
        for folder, report in grade_each(folders, self.device, self.limits, accepted, self.workers or None, components):
            graded[folder] = report
            progress.step(_ids(converter, folder)[1])

    def _quiz(self, nb):
        """{check cell id: (points, text)}: the sheet's code cells run in the jail, its answers judged by the bank."""
        from autograder.breakout import bank

        converter, run = self._run()
        if run.sandbox is None:
            run.questions = {q.id: q for part in bank.load() for q in part.questions if q.autograded}
            run.sandbox = sandbox.Sandbox(self.device, self.limits)
            weakref.finalize(converter, run.sandbox.close)
        cells = [
            loader.without_magics(cell.source) or ""
            for cell in nb.cells
            if cell.cell_type == "code" and not cell.metadata.get("nbgrader", {}).get("grade")
        ]
        try:
            answers, problem = run.sandbox.answers(cells, list(run.questions)), ""
        except SubmissionError as error:
            answers, problem = {}, f"\nYour answer cells could not be run: {error}"
        verdicts = {q.id: bank.cell_verdict(q, answers.get(q.id)) for q in run.questions.values()}
        return {
            f"check-{qid}": (points, text + (problem if not points else "")) for qid, (points, text) in verdicts.items()
        }


class KitSanitize(NbGraderPreprocessor):
    """First of nbgrader's sanitizing steps: a student's notebook whose nbgrader cells are not the source's
    (a hidden cell pasted twice, as Jupyter's copy and paste does; renamed, deleted, re-typed) is put back
    in the source's shape, so that nbgrader neither stops (a duplicate made it stop the whole class) nor
    scores the student's version of a cell.

    A cell whose nbgrader metadata does not belong (a second copy, an id the source lacks, a changed type)
    keeps its text and loses the metadata; a graded or locked cell of the source that is missing comes
    back from it, so the kit's verdict fills it. Solution cells are the student's and never come back.
    Each repair is a note in the notebook's metadata, which KitGrades puts into the feedback. The kit's
    own grade never depended on these cells: it reads the student's files (loader), not nbgrader's copy.
    """

    def preprocess(self, nb, resources):
        ids = resources["nbgrader"]
        source = _source_notebook(self.parent.parent.coursedir, ids)
        expected = {_grade_id(cell): cell for cell in source.cells if _grade_id(cell)}
        kept, notes = [], []
        for cell in nb.cells:
            grade_id = _grade_id(cell)
            if "nbgrader" in cell.metadata and (
                grade_id not in expected or grade_id in kept or cell.cell_type != expected[grade_id].cell_type
            ):
                del cell.metadata["nbgrader"]
                notes.append(
                    f"a cell marked as nbgrader's {visible(str(grade_id))!r} is not the course's (a pasted copy, "
                    "or a changed one): it was kept as an ordinary cell"
                )
            elif grade_id:
                kept.append(grade_id)
                _unhide(cell, expected[grade_id])
        for grade_id, cell in expected.items():
            if grade_id not in kept and not cell.metadata["nbgrader"].get("solution"):
                restored = copy.deepcopy(cell)
                if "id" in restored:
                    restored["id"] = uuid.uuid4().hex[:8]  # the student's cells may use the source's id
                nb.cells.append(restored)
                notes.append(
                    f"nbgrader's cell {grade_id!r} was missing or changed: it was put back from the course's source"
                )
        if notes:
            self.log.warning("%s's %s: %s", ids["student"], ids["notebook"], "; ".join(notes))
            nb.metadata[NOTES] = notes
        return nb, resources


def _unhide(cell, source):
    """A graded cell as the release gave it (its hidden tests cut out) takes the source's text back, as
    nbgrader's OverwriteCells would, but without its warning: that warning is for a changed cell, and every
    untouched hidden test cell of every student raised it."""
    lines, kept, hidden = source.source.split("\n"), [], False
    for line in lines:
        if "BEGIN HIDDEN TESTS" in line or "END HIDDEN TESTS" in line:
            hidden = "BEGIN" in line
        elif not hidden:
            kept.append(line)
    if kept != lines and cell.source == "\n".join(kept):
        cell.source = source.source


# nbconvert's HTML exporter configures display_data_priority for every NbConvertBase, preprocessors included;
# nbgrader's preprocessors hold the trait without making it configurable, and traitlets then warned "Config option
# display_data_priority not recognized" once per step and notebook of every student's feedback. These take it.
DISPLAY_DATA_PRIORITY = List(
    ["text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "text/plain"]
).tag(config=True)


class KitClearHiddenTests(ClearHiddenTests):
    """nbgrader's ClearHiddenTests, as generate_feedback runs it, taking nbconvert's display_data_priority."""

    display_data_priority = DISPLAY_DATA_PRIORITY


class KitFeedback(NbGraderPreprocessor):
    """Last of generate_feedback's steps: a test cell shows the kit's feedback and nbgrader's score header,
    not the bare number that gave nbgrader its partial credit (an `Out[ ]: 5` under the text). The feedback
    is set as HTML: long lines wrap at spaces, never inside a number or a word (5e-05 once broke as 5e-0 / 5),
    and the "Likely mistake" line and the hints stand apart from the monospace text around them."""

    # Above the page's own rules for output text (div.output_subarea pre, word-break: break-all): more specific.
    CSS = (
        "div.output_subarea pre.kit-feedback { white-space: pre-wrap; word-break: normal; overflow-wrap: normal; }\n"
        "div.output_subarea pre.kit-feedback .kit-likely { display: block; font-weight: bold; background: #fff3cd;"
        " border-left: 4px solid #d39e00; padding: 2px 6px; margin: 4px 0; }\n"
        "div.output_subarea pre.kit-feedback .kit-hint { display: block; color: #0b5394; margin: 2px 0; }"
    )
    display_data_priority = DISPLAY_DATA_PRIORITY

    def preprocess(self, nb, resources):
        for cell in filter(_is_test_cell, nb.cells):
            cell.outputs = [
                _as_html(output) if output.output_type == "stream" else output
                for output in cell.outputs
                if output.output_type != "execute_result"
            ]
        resources.setdefault("inlining", {}).setdefault("css", []).append(self.CSS)
        return nb, resources


def _as_html(output):
    """A test cell's feedback text as escaped HTML, its likely-mistake and hint lines marked; the text kept."""
    lines = []
    for line in output.text.rstrip("\n").split("\n"):
        escaped = html.escape(line, quote=False)
        kind = "kit-likely" if line.startswith(LIKELY) else "kit-hint" if line.lstrip("- ").startswith(HINT) else None
        lines.append(f'<span class="{kind}">{escaped}</span>' if kind else escaped)
    body = "\n".join(lines)
    return new_output(
        "display_data", data={"text/html": f'<pre class="kit-feedback">{body}</pre>', "text/plain": output.text}
    )


def _is_test_cell(cell):
    """A code cell nbgrader grades by its output (an autograder test cell), not by hand."""
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def _source_notebook(coursedir, ids):
    """The instructor's source of the notebook nbgrader is processing (resources["nbgrader"] gives ids)."""
    folder = coursedir.format_path(coursedir.source_directory, ".", ids["assignment"])
    return nbformat.read(os.path.join(folder, f"{ids['notebook']}.ipynb"), as_version=4)


def _grade_id(cell):
    meta = cell.metadata.get("nbgrader")
    grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
    return grade_id if isinstance(grade_id, str) else None


class _Run:
    """What one run of nbgrader autograde has done: its grades so far; the sandbox and bank its quiz sheets use."""

    def __init__(self):
        self.graded = {}  # {submission folder: Report}
        self.sandbox = None
        self.questions = {}


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


class KitCsvExport(CsvExportPlugin):
    """nbgrader's grades.csv, with a column nbgrader leaves out: awaiting_manual_grading, the points of the
    cells still to be graded by hand (the breakout's short answers). Without it a complete answer sheet read
    70 of 93 with no sign that 23 points were not yet graded."""

    COLUMN = "awaiting_manual_grading"

    def export(self, gradebook):
        super().export(gradebook)
        path = self.to or "grades.csv"
        with open(path, newline="") as file:
            reader = csv.DictReader(file)
            fields, rows = [*(reader.fieldnames or []), self.COLUMN], list(reader)
        for row in rows:
            try:
                submission = gradebook.find_submission(row["assignment"], row["student_id"])
            except MissingEntry:  # nothing handed in: nothing waits
                waiting = 0.0
            else:
                waiting = sum(g.max_score for n in submission.notebooks for g in n.grades if g.needs_manual_grade)
            row[self.COLUMN] = str(float(waiting))
        with open(path, "w", newline="") as file:
            writer = csv.DictWriter(file, fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
