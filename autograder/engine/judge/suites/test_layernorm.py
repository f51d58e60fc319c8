"""Hidden suite for `layernorm`: BERT's LayerNorm, including an eps large enough to see where it goes."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_inputs_unchanged
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_case_beside_the_usual

COMPONENT = "layernorm"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_layernorm_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["output"]})


@cases("large-eps")
def test_layernorm_matches_reference_with_a_large_eps(student: Student, case: Case, dtype: str | None) -> None:
    check_case_beside_the_usual(student, case, dtype, HINT["eps"])


@cases("fresh")
def test_layernorm_starts_as_plain_normalisation(student: Student, case: Case, dtype: str | None) -> None:
    check_case_beside_the_usual(student, case, dtype, HINT["fresh"])


@cases("reference", "large-eps", "fresh", trained=True)
def test_layernorm_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    """The input, weight and bias all get their gradients."""
    check_training(student, case, dtype, {"output": HINT["output"]})


@cases("reference", pick=slice(None, 1))
def test_layernorm_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)
