"""The breakout question bank (breakout_questions/*.yaml): loading it, and grading one answer.

Each part file is read by questions.py, which holds the format. The same `judge` grades an answer typed at the
terminal quiz and one written in a quiz notebook, so a student gets the same verdict and the same message in
both places. Nothing here imports torch.
"""

import base64
import math
import re
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.breakout.questions import BankError, Question, read_part
from autograder.engine.contract import spec

BANK = spec.KIT_ROOT / "breakout_questions"
# The instructor's settings, beside the part files; every setting has its default when the file or the key is absent.
SETTINGS = "settings.yaml"
DEFAULTS = {"grade_short_answers": False}


@dataclass(frozen=True)
class Verdict:
    status: str  # correct, incorrect, invalid (the answer is not of the question's form)
    message: str
    score: float = 0.0


def settings(folder=BANK):
    """The bank's settings ({name: value}, DEFAULTS for what settings.yaml leaves out); raises BankError for a name
    or a value it does not know."""
    import yaml

    path = Path(folder) / SETTINGS
    try:
        data = yaml.safe_load(path.read_text()) if path.exists() else {}
    except yaml.YAMLError as error:
        raise BankError(f"{SETTINGS}: not valid YAML: {error}") from None
    data = {} if data is None else data
    if not isinstance(data, dict) or set(data) - set(DEFAULTS):
        raise BankError(f"{SETTINGS}: the settings are {', '.join(DEFAULTS)}, each on a line of its own (name: value)")
    for name, value in data.items():
        if not isinstance(value, type(DEFAULTS[name])):
            raise BankError(f"{SETTINGS}: {name} is {type(DEFAULTS[name]).__name__}, such as {DEFAULTS[name]!r}")
    return DEFAULTS | data


def load(folder=BANK, grade_short_answers=None):
    """Every part of the bank, in order; raises BankError for anything that breaks the format.

    Short answers are worth their points when grade_short_answers, or, when it is None, when settings.yaml says so.
    """
    import yaml

    if grade_short_answers is None:
        grade_short_answers = settings(folder)["grade_short_answers"]
    files = sorted(path for path in Path(folder).glob("*.yaml") if path.name != SETTINGS)
    if not files:
        raise BankError(f"no question files (*.yaml) in {folder}")
    parts = []
    seen: dict[str, str] = {}  # question id -> the file that holds it
    for path in files:
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise BankError(f"{path.name}: not valid YAML: {error}") from None
        part = read_part(path.stem, data, path.name, grade_short_answers)
        for question in part.questions:
            if question.id in seen:
                raise BankError(f"{path.name}: id {question.id} is used already in {seen[question.id]}")
            seen[question.id] = path.name
        parts.append(part)
    return tuple(parts)


def find_part(parts, wanted):
    """The part named by wanted: its number (3), its name (03_feedforward_layernorm) or a word of it."""
    wanted = str(wanted).strip().lower()
    matches = [p for p in parts if wanted in (str(p.number), f"{p.number:02d}", p.name)]
    matches = matches or [p for p in parts if wanted in p.name.split("_")[1:]]
    matches = matches or [p for p in parts if wanted in p.name or wanted in p.title.lower()]
    if len(matches) != 1:
        names = ", ".join(p.name for p in parts)
        raise BankError(
            f"no part {wanted!r}; the parts are {names}"
            if not matches
            else f"{wanted!r} could be {', '.join(p.name for p in matches)}; give its number"
        )
    return matches[0]


def points_text(points):
    """1 point, 2 points, 0.5 points."""
    return f"{points:g} point{'' if points == 1 else 's'}"


# --- grading -------------------------------------------------------------------------------------


def read_answer(question, answer):
    """The answer in its question's form: (letters as a frozenset, or a float, or None) and a message.

    Only for autograded questions. `answer` is what the student wrote: text typed at the terminal, or a Python value in a notebook
    ("B", ["A", "C"], "A, C", 2362368, "2,362,368"). The message says what is wrong with its form.
    """
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return None, "No answer given. " + question.instruction()
    if question.kind == "choice":
        return _read_letters(question, answer)
    return _read_number(question, answer)


def _read_letters(question, answer):
    if isinstance(answer, str):
        letters = [x for x in re.split(r"[\s,;]+", answer.strip().upper()) if x]
        if (
            len(letters) == 1
            and len(letters[0]) > 1
            and letters[0].isalpha()
            and len(letters[0]) <= len(question.options)
        ):
            letters = list(letters[0])  # "AC"
    elif isinstance(answer, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in answer):
        letters = [x.strip().upper() for x in answer]
    else:
        return None, f'Give letters as text, such as "A", not {type(answer).__name__}. ' + question.instruction()
    unknown = [x for x in letters if x not in question.options]
    if unknown:
        return None, (
            f"There is no option {', '.join(unknown)}: the options are {', '.join(question.options)}. "
            + question.instruction()
        )
    if not question.several and len(set(letters)) > 1:
        return None, "Only one option is correct here: give a single letter."
    return frozenset(letters), ""


def _read_number(question, answer):
    if isinstance(answer, bool) or not isinstance(answer, (int, float, str)):
        return None, f"Give a number, not {type(answer).__name__}. " + question.instruction()
    if isinstance(answer, str):
        text = answer.strip().replace(",", "").replace("_", "")
        if question.unit and text.endswith(question.unit):
            text = text[: -len(question.unit)].strip()
        try:
            answer = float(text)
        except ValueError:
            return None, f"{answer.strip()!r} is not a number. " + question.instruction()
    if not math.isfinite(answer):
        return None, f"{answer} is not a finite number."
    return float(answer), ""


def judge(question, answer):
    """Grade one answer to an autograded question. A short answer is never judged here."""
    if not question.autograded:
        raise ValueError(
            f"question {question.number} is a written answer, never judged here: discussed, or graded by hand"
        )
    value, problem = read_answer(question, answer)
    if value is None:
        return Verdict("invalid", problem)
    if question.kind == "choice":
        right = value == question.answer
    else:
        right = abs(value - question.answer) <= question.tolerance + 1e-9 * abs(question.answer)
    if right:
        return Verdict("correct", f"Correct. {question.explanation}", question.points)
    return Verdict("incorrect", f"Not correct: the answer is {question.key()}. {question.explanation}")


def check_format(namespace, question_id, number, kind, options="", several=False, unit=""):
    """The visible half of a quiz notebook's test cell: is the answer there, and of the question's form?

    It knows the form from what the release shows (the kind, the option letters), so it says nothing
    about whether the answer is right: that is the hidden half's job. A problem goes to fail_cell, never
    to a traceback, which would quote the hidden half of the cell in the student's feedback.
    """
    from autograder.course.jupyter import fail_cell

    if question_id not in namespace:
        return fail_cell(f"question {number} is not answered yet: set {question_id} in the cell above")
    answer = namespace[question_id]
    if kind == "choice":  # any key of the right size will do: only the form is checked here
        letters = frozenset(options[:2]) if several else frozenset(options[:1])
        public = Question("", number, question_id, kind, "", "", 1, dict.fromkeys(options, ""), letters)
    else:
        public = Question("", number, question_id, kind, "", "", 1, answer=0, unit=unit)
    _, problem = read_answer(public, answer)
    if problem:
        return fail_cell(f"question {number}: {question_id} = {answer!r} cannot be graded. {problem}")
    print(f"question {number}: your answer {answer!r} is recorded (it is graded later)")


def grade_answer(part_name, question_id, namespace):
    """The hidden half of a quiz notebook's test cell: grade the answer with the instructor's bank.

    A right answer prints the explanation (nbgrader gives the cell its points); anything else goes to
    fail_cell (0 points). Without the bank the kit cannot grade, which is never the student's fault,
    so no zero is recorded.
    """
    from autograder.course.jupyter import fail_cell, kit_failed

    try:
        part = next(p for p in _graded_bank() if p.name == part_name)
        question = next(q for q in part.questions if q.id == question_id)
    except (BankError, StopIteration) as error:
        return kit_failed(f"question {question_id} of {part_name} is not in the bank at {BANK}: {error}")
    points, text = cell_verdict(question, namespace.get(question.id))
    if not points:
        return fail_cell(text)
    print(text)


def discussed(question):
    """What a discussion question's cell shows once the student has answered: the model answer and why, encoded so
    that the release does not show them before (Base64 of the compressed text: not a secret, since they score
    nothing, only out of sight)."""
    text = f"Model answer: {question.model_answer}\n\nWhy: {question.explanation}"
    return base64.encodebytes(zlib.compress(text.encode(), 9)).decode()


def discuss(namespace, question_id, number, encoded):
    """The cell after a discussion question's answer: the model answer, once the answer is written; else how to
    write it. It fails nothing, since the question is worth no points."""
    answer = namespace.get(question_id)
    if not isinstance(answer, str) or not answer.strip():
        print(
            f'question {number}: write your answer in the cell above, as {question_id} = """your sentences""", '
            "and run it; then run this cell to compare it with a model answer"
        )
        return
    print(zlib.decompress(base64.b64decode(encoded)).decode())


def cell_verdict(question, answer):
    """(points, what the question's test cell shows): the hidden cell's, and the kit's autograde step's."""
    verdict = judge(question, answer)
    points = points_text(question.points)
    if verdict.status != "correct":
        return 0, f"question {question.number} ({points}), 0 points. {verdict.message}"
    return verdict.score, f"question {question.number} ({points}): {verdict.message}"


@cache
def _graded_bank():
    """The bank, read once per kernel: each of a quiz notebook's test cells would otherwise parse every file."""
    return load()
