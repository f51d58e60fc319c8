"""Hidden suite for `masking`: causal_mask and padding_mask, compared exactly."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.selection import cases

COMPONENT = "masking"
HINT = HINTS[COMPONENT]


@cases("causal")
def test_causal_mask_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"mask": HINT["causal"]})


@cases("padding")
def test_padding_mask_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"mask": HINT["padding"]})
