"""The breakout sheets of a hand-in, graded beside its code: students hand in `transformer/` and `breakout/`, and
`grade`, `grade-all`, the Gradescope package and the image grade both (nbgrader grades the sheets as an assignment
of their own, autograder/nbgrader/grades.py, with the same cells run the same way and the same bank).

A sheet is a notebook that carries the quiz notebooks' metadata key, naming its part of the bank. Its answer cells
run in the jail (Sandbox.answers) and the bank judges what comes back, as in nbgrader's door. Short answers are not
judged: discussion questions by default (no points), or, where breakout_questions/settings.yaml grades them, points
that wait for a person.
"""

import time

from autograder.breakout import bank
from autograder.engine.contract import loader, noticed
from autograder.engine.contract.errors import SubmissionError
from autograder.engine.contract.protocol import visible_name
from autograder.engine.judge import grade as code_grading
from autograder.engine.judge.results import Report, Sheet
from autograder.engine.judge.sandbox import Sandbox

SHEETS_ONLY = "breakout sheets only ({count}), no code: their answers are graded, and no component is looked for"


def find(path):
    """(sheets, whether the hand-in holds code too): sheets as [(relative path, part name, notebook cells)], by
    path. What is no hand-in at all is the code's grading to say (code, then, is True)."""
    try:
        _, files, _ = loader.read_files(path)
    except SubmissionError:
        return [], True
    sheets, code = [], False
    for relative, text in files:
        sheet = noticed.quiz_sheet(text) if relative.endswith(".ipynb") else None
        if sheet is None:
            code = True
        else:
            sheets.append((relative, *sheet))
    # Nothing read at all (every file skipped) is the code's grading to say, as for no hand-in.
    return sheets, code or not sheets


def answer_cells(cells):
    """The code a sheet's answers come from: its code cells but the graded ones (the checks), magics made `pass`."""
    return [
        loader.without_magics(_text(cell.get("source", ""))) or ""
        for cell in cells
        if cell.get("cell_type") == "code" and not (cell.get("metadata", {}).get("nbgrader") or {}).get("grade")
    ]


def _text(source):
    return "".join(map(str, source)) if isinstance(source, list) else str(source)


def grade_sheets(sheets, sandbox, parts=None):
    """([Sheet], notes) of each (relative path, part name, cells): the first sheet of a part is graded; a second one,
    or one of a part the bank does not hold, is a note (at most loader.MAX_NOTES of them, however many are handed
    in: none of them runs)."""
    parts = {p.name: p for p in parts or bank.load()}
    graded: list[Sheet] = []
    notes: list[str] = []
    done: dict[str, str] = {}  # part -> the sheet of it that is graded
    for relative, name, cells in sheets:
        where = visible_name(relative)
        if name not in parts:
            notes.append(f"{where} was not graded: a breakout sheet of no part of the bank ({visible_name(name)})")
        elif name in done:
            notes.append(f"{where} was not graded: a second sheet of {name} ({done[name]} is graded)")
        else:
            done[name] = where
            graded.append(_graded(parts[name], where, cells, sandbox))
    return graded, loader.distinct(notes)


def _graded(part, where, cells, sandbox):
    judged = [q for q in part.questions if q.autograded]
    try:
        answers, problem = sandbox.answers(answer_cells(cells), [q.id for q in judged]), ""
    except SubmissionError as error:
        answers, problem = {}, f" Your answer cells could not be run: {error}"
    lines, misses, score = [], [], 0.0
    for question in part.questions:
        if question.discussion:
            lines.append(f"question {question.number}: a discussion question, no points")
        elif not question.autograded:
            lines.append(
                f"question {question.number} ({bank.points_text(question.points)}): a short answer, waiting for "
                "your instructor to grade it by hand"
            )
        else:
            points, text = bank.cell_verdict(question, answers.get(question.id))
            score += points
            lines.append(text + (problem if not points else ""))
            misses += [] if points else [f"  {text.splitlines()[0]}"]
    points = sum(q.points for q in judged)
    waiting = sum(q.points for q in part.questions if not q.autograded)
    head = f"{where} (breakout {part.number}, {part.title}): {score:g} of {points:g} points"
    # Each verdict's lines hang under its first, as the bank's explanations are written across lines.
    body = [f"  {line}".replace("\n", "\n    ") for line in lines]
    return Sheet(part.name, round(score, 2), points, [head, *body], waiting, misses)


def grade_hand_in(path, device="cpu", limits=None, components=None, sandbox=None, accept_flagged=False):
    """The Report of a hand-in: its code graded as engine.judge.grade grades it, and its breakout sheets beside it.
    A hand-in of sheets alone is its sheets (no component is looked for); with components given, the code alone."""
    started = time.monotonic()
    sheets, code = find(path) if components is None else ([], True)
    own = sandbox is None and bool(sheets)
    sandbox = Sandbox(device, limits) if own else sandbox
    try:
        if code:
            report = code_grading.grade(path, device, limits, components, sandbox, accept_flagged)
        else:
            report = Report(str(path), [], [SHEETS_ONLY.format(count=len(sheets))], 0.0)
        if sheets:
            sandbox.grade_under(limits)
            report.sheets, notes = grade_sheets(sheets, sandbox)
            report.notes = loader.distinct(report.notes + notes)
    finally:
        if own:
            sandbox.close()
    report.seconds = time.monotonic() - started
    return report
