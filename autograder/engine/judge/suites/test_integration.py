"""The student's whole stack, with no reference part at all, against Hugging Face. Reported, never scored."""
import pytest

from autograder.engine.judge.fixtures import of_kind
from autograder.engine.judge.suites.common import check_case

COMPONENT = "integration"
HINT = "every part is yours here: the component whose own tests fail is the one to fix first."
CASES = [
    pytest.param(case, id=f"{case.component}-{case.id}")
    for case in of_kind("heads", "hf-model")[:1] + of_kind("seq2seq", "hf")[:1] + of_kind("seq2seq", "generate")[:1]
]


@pytest.mark.parametrize("case", CASES)
def test_whole_stack_matches_hf(student, case):
    check_case(student, case, "float32", dict.fromkeys(case.outputs, HINT))
