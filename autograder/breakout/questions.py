"""A part file of the breakout bank read into Questions: the format breakout_questions/README.md describes,
checked field by field, each problem a BankError that says which file and question.

Three kinds of question: `choice` (one correct option, or several), `numeric` (within a tolerance) and
`short` (a model answer and a rubric). A short answer is for discussion, worth no points, unless the bank's
settings grade short answers: then it is worth its points, graded by hand with the rubric.
"""

import keyword
import math
import re
from dataclasses import dataclass, field

from autograder.engine.contract.errors import KitFault

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
    answer: frozenset[str] | float | None = None  # a frozenset of letters (choice) or a number (numeric)
    tolerance: float = 0.0
    unit: str = ""
    verified_by: str = ""
    model_answer: str = ""
    rubric: tuple = ()  # ((points, criterion), ...), for short: what it is worth when short answers are graded

    @property
    def several(self):
        """Whether a choice question has more than one correct option (the student is told so)."""
        return isinstance(self.answer, frozenset) and len(self.answer) > 1

    @property
    def autograded(self):
        return self.kind != "short"

    @property
    def discussion(self):
        """A short answer worth no points (the default): written, then compared with the model answer."""
        return self.kind == "short" and not self.points

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
        if isinstance(self.answer, frozenset):  # a choice question's
            return sorted(self.answer) if self.several else next(iter(self.answer))
        return self.answer if self.kind == "numeric" else self.model_answer

    def key(self):
        """The correct answer, in words."""
        if isinstance(self.answer, frozenset):  # a choice question's
            return ", ".join(sorted(self.answer))
        if self.kind == "numeric":
            within = f" (answers within {self.tolerance:g} count)" if self.tolerance else ""
            return f"{_number(self.answer)}{' ' + self.unit if self.unit else ''}{within}"
        return self.model_answer


@dataclass(frozen=True)
class Part:
    name: str  # 01_attention
    title: str
    minutes: int  # how long the sheet takes a group, discussion included
    questions: tuple

    @property
    def number(self):
        return int(self.name[:2])

    @property
    def points(self):
        return sum(q.points for q in self.questions)


def read_part(name, data, where, grade_short_answers=False):
    """A part file's data as a Part; its short answers are worth their points only if grade_short_answers."""
    if not PART_NAME.match(name):
        raise BankError(f"{where}: name a part file NN_words.yaml, such as 01_attention.yaml")
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) or not data["questions"]:
        raise BankError(f"{where}: a part file holds a `title` and a non-empty list of `questions`")
    extra = sorted(set(data) - {"title", "minutes", "questions"})
    if extra:
        raise BankError(
            f"{where}: a part file has `title`, `minutes` and `questions` only, not {', '.join(map(str, extra))}"
        )
    title = _text(data, "title", where)
    minutes = data.get("minutes")
    if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes <= 0:
        raise BankError(f"{where}: minutes, how long the sheet takes a group, must be a whole number above 0")
    number = int(name[:2])
    questions = tuple(
        _question(name, f"{number}.{i}", q, f"{where}, question {i}", grade_short_answers)
        for i, q in enumerate(data["questions"], start=1)
    )
    return Part(name, title, minutes, questions)


def _question(part, number, data, where, grade_short_answers):
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
    if not grade_short_answers:
        common["points"] = 0
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
            f"{where}: a numeric answer needs verified_by: the computation in tests/support/breakout_facts.py "
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


def _number(value):
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"
