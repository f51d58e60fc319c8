"""The student's whole stack, with no reference part at all, against Hugging Face. Reported, never scored."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.selection import cases

COMPONENT = "integration"
HINT = HINTS[COMPONENT]


@cases("hf-model", component="heads", pick=slice(None, 1))
@cases("hf", component="seq2seq", pick=slice(None, 1))
@cases("generate", component="seq2seq", pick=slice(None, 1))
def test_whole_stack_matches_hf(student: Student, case: Case) -> None:
    check_case(student, case, "float32", dict.fromkeys(case.outputs, HINT["output"]))
