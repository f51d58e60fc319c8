"""The breakout question bank (breakout_questions/*.yaml): loading, validation, and grading one answer.

Three kinds of question: `choice` (one correct option, or several), `numeric` (within a tolerance) and
`short` (a model answer and a rubric, graded by hand). The same `judge` grades an answer typed at the
terminal quiz and one written in a quiz notebook, so a student gets the same verdict and the same
message in both places. Nothing here imports torch.
"""

import keyword
import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault

BANK = spec.KIT_ROOT / "breakout_questions"
KINDS = ("choice", "numeric", "short")
DEFAULT_POINTS = {"choice": 1, "numeric": 1, "short": 2}
LETTERS = "ABCDEFGH"
PART_NAME = re.compile(r"^\d\d_[a-z0-9_]+$")
FIELDS = {
    "common": {"id", "kind", "question", "explanation", "points"},
    "choice": {"options", "answer", "verified_by"},
    "numeric": {"answer", "tolerance", "unit", "verified_by"},
    "short": {"model_answer", "rubric"},
}


class BankError(KitFault, ValueError):
    """A question file that does not follow breakout_questions/README.md; says which file and question."""


@dataclass(frozen=True)
class Question:
    part: str  # the file's stem, such as 01_attention
    number: str  # 1.3: part number, then place in the part
    id: str
    kind: str
    text: str
    explanation: str
    points: float
    options: dict = field(default_factory=dict)  # {letter: text}, for choice
    answer: object = None  # a frozenset of letters (choice) or a number (numeric)
    tolerance: float = 0.0
    unit: str = ""
    verified_by: str = ""
    model_answer: str = ""
    rubric: tuple = ()  # ((points, criterion), ...), for short

    @property
    def several(self):
        """Whether a choice question has more than one correct option (the student is told so)."""
        return self.kind == "choice" and len(self.answer) > 1

    @property
    def autograded(self):
        return self.kind != "short"

    def instruction(self):
        """How to give the answer, in words."""
        if self.kind == "choice":
            letters = ", ".join(self.options)
            return (
                f"Choose every correct option ({letters}): several letters."
                if self.several
                else f"Choose one option ({letters})."
            )
        if self.kind == "numeric":
            return "Give a number" + (f" (in {self.unit})" if self.unit else "") + "."
        return "Answer in a few sentences."

    def written_answer(self):
        """The correct answer as Python, as a quiz notebook's answer cell holds it: "B", ["A", "C"], 42."""
        if self.kind == "choice":
            return sorted(self.answer) if self.several else next(iter(self.answer))
        return self.answer if self.kind == "numeric" else self.model_answer

    def key(self):
        """The correct answer, in words."""
        if self.kind == "choice":
            return ", ".join(sorted(self.answer))
        if self.kind == "numeric":
            within = f" (answers within {self.tolerance:g} count)" if self.tolerance else ""
            return f"{_number(self.answer)}{' ' + self.unit if self.unit else ''}{within}"
        return self.model_answer


@dataclass(frozen=True)
class Part:
    name: str  # 01_attention
    title: str
    questions: tuple

    @property
    def number(self):
        return int(self.name[:2])

    @property
    def points(self):
        return sum(q.points for q in self.questions)


@dataclass(frozen=True)
class Verdict:
    status: str  # correct, incorrect, invalid (the answer is not of the question's form)
    message: str
    score: float = 0.0


# --- loading -------------------------------------------------------------------------------------


def load(folder=BANK):
    """Every part of the bank, in order; raises BankError for anything that breaks the format."""
    import yaml

    files = sorted(Path(folder).glob("*.yaml"))
    if not files:
        raise BankError(f"no question files (*.yaml) in {folder}")
    parts, seen = [], {}
    for path in files:
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise BankError(f"{path.name}: not valid YAML: {error}") from None
        part = _part(path.stem, data, path.name)
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


def _part(name, data, where):
    if not PART_NAME.match(name):
        raise BankError(f"{where}: name a part file NN_words.yaml, such as 01_attention.yaml")
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) or not data["questions"]:
        raise BankError(f"{where}: a part file holds a `title` and a non-empty list of `questions`")
    extra = sorted(set(data) - {"title", "questions"})
    if extra:
        raise BankError(f"{where}: a part file has `title` and `questions` only, not {', '.join(map(str, extra))}")
    title = _text(data, "title", where)
    number = int(name[:2])
    questions = tuple(
        _question(name, f"{number}.{i}", q, f"{where}, question {i}") for i, q in enumerate(data["questions"], start=1)
    )
    return Part(name, title, questions)


def _question(part, number, data, where):
    if not isinstance(data, dict):
        raise BankError(f"{where}: a question is a mapping of fields (id, kind, question, ...)")
    kind = data.get("kind")
    if kind not in KINDS:
        raise BankError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    unknown = set(data) - FIELDS["common"] - FIELDS[kind]
    if unknown:
        raise BankError(f"{where}: a {kind} question has no field {', '.join(sorted(unknown))}")
    qid = data.get("id")
    if not (isinstance(qid, str) and qid.isidentifier() and qid.islower() and not keyword.iskeyword(qid)):
        raise BankError(f"{where}: id must be a lower-case Python name, such as scaling_purpose, not {qid!r}")
    where = f"{where} ({qid})"
    points = data.get("points", DEFAULT_POINTS[kind])
    if not _is_number(points) or points <= 0:
        raise BankError(f"{where}: points must be a positive number")
    common = dict(
        part=part,
        number=number,
        id=qid,
        kind=kind,
        text=_text(data, "question", where),
        explanation=_text(data, "explanation", where),
        points=points,
    )
    if kind == "choice":
        return Question(**common, **_choice(data, where))
    if kind == "numeric":
        return Question(**common, **_numeric(data, where))
    return Question(**common, **_short(data, points, where))


def _choice(data, where):
    options = data.get("options")
    if not isinstance(options, dict) or len(options) < 2:
        raise BankError(f"{where}: options is a mapping of at least two letters to texts (A: ..., B: ...)")
    if list(options) != list(LETTERS[: len(options)]):
        raise BankError(f"{where}: options are lettered A, B, C, ... in order, not {', '.join(map(str, options))}")
    if len(set(map(str, options.values()))) != len(options):
        raise BankError(f"{where}: two options have the same text")
    for letter in options:
        _text(options, letter, f"{where}, option")
    answer = data.get("answer")
    letters = answer if isinstance(answer, list) else [answer]
    if not letters or any(letter not in options for letter in letters) or len(set(letters)) != len(letters):
        raise BankError(f"{where}: answer is an option's letter, or a list of them, not {answer!r}")
    if len(letters) == len(options):
        raise BankError(f"{where}: every option is correct; add a wrong one")
    return dict(
        options=dict(options), answer=frozenset(letters), verified_by=_optional_text(data, "verified_by", where)
    )


def _numeric(data, where):
    answer, tolerance = data.get("answer"), data.get("tolerance", 0)
    if not _is_number(answer):
        raise BankError(f"{where}: answer must be a number, not {answer!r}")
    if not _is_number(tolerance) or tolerance < 0:
        raise BankError(f"{where}: tolerance must be a number >= 0")
    verified_by = _optional_text(data, "verified_by", where)
    if not verified_by:
        raise BankError(
            f"{where}: a numeric answer needs verified_by: the computation in tests/breakout_facts.py "
            "that derives it from a real module"
        )
    return dict(answer=answer, tolerance=tolerance, unit=_optional_text(data, "unit", where), verified_by=verified_by)


def _short(data, points, where):
    rubric = data.get("rubric")
    if not isinstance(rubric, list) or not rubric:
        raise BankError(f"{where}: rubric is a list of criteria, each `- points: N` and `criterion: ...`")
    items = []
    for item in rubric:
        if not (isinstance(item, dict) and set(item) == {"points", "criterion"} and _is_number(item["points"])):
            raise BankError(f"{where}: each rubric item has points (a number) and criterion (a text)")
        items.append((item["points"], _text(item, "criterion", f"{where}, rubric")))
    if not math.isclose(sum(p for p, _ in items), points):
        raise BankError(
            f"{where}: the rubric's points add up to {sum(p for p, _ in items):g}, the question's to {points:g}"
        )
    return dict(model_answer=_text(data, "model_answer", where), rubric=tuple(items))


def _text(data, name, where):
    value = data.get(name)
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
        raise BankError(f"{where}: {name} must be a non-empty text")
    return str(value).strip()


def _optional_text(data, name, where):
    return _text(data, name, where) if name in data else ""


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def points_text(points):
    """1 point, 2 points, 0.5 points."""
    return f"{points:g} point{'' if points == 1 else 's'}"


def _number(value):
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


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
        raise ValueError(f"question {question.number} is graded by hand")
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


def grade_here(part_name, question_id, namespace):
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
