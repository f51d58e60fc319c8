"""Hidden suite for `attention`: scaled_dot_product_attention against the float64 reference."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_inputs_unchanged
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training

COMPONENT = "attention"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_attention_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"weights": HINT["weights"], "output": HINT["output"]})


@cases("reference", trained=True)
def test_attention_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    """Attention has no dropout of its own: train mode is eval mode, and query, key and value get gradients."""
    check_training(student, case, dtype, {"weights": HINT["weights"], "output": HINT["output"]})


@cases("reference", pick=slice(-2, None))
def test_attention_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)
