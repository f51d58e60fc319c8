"""The cases unlike their target's usual ones (another config, a large eps, fresh weights), whose failure gets the
hint that says what only they tell."""

from autograder.engine.contract.errors import StudentError
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINT, HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case, right


def check_follows_config(student: Student, case: Case, dtype: str | None) -> None:
    """A case built from engine/authoring/builder.py's ODD_CONFIG, with the hint that names every size to read."""
    check_case_beside_the_usual(student, case, dtype, HINTS["any"]["config"])


# The kinds of case that differ from their target's usual ones in one respect (engine/authoring/cases/).
UNUSUAL = ("config", "large-eps", "fresh")


def check_case_beside_the_usual(student: Student, case: Case, dtype: str | None, hint: str) -> None:
    """check_case on a case unlike its target's usual ones (another config, a large eps, fresh weights), whose
    hint says what only it tells: given where every usual case of its target is right, and nowhere else. Where
    one fails too (a mask that the odd case also holds, say), this one's failure says nothing of its own, and
    the usual cases' test says what is wrong."""
    try:
        check_case(student, case, dtype, {})
    except StudentError as error:
        usual = [
            c
            for c in (case.source.cases(case.component) if case.source else [])
            if c.target == case.target and c.kind not in UNUSUAL and dtype in c.dtypes
        ]
        if not usual or HINTS["any"]["float32-only"] in str(error) or not all(right(student, c, dtype) for c in usual):
            raise
        raise StudentError(f"{error}\n{HINT}{hint}") from None
