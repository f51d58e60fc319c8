"""Hidden suite for `feedforward`: the GELU block, on inputs large enough to tell GELU approximations apart."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_deterministic, check_inputs_unchanged
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_follows_config

COMPONENT = "feedforward"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_feedforward_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["output"]})


@cases("reference", "config", trained=True)
def test_feedforward_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("reference", pick=slice(None, 1))
def test_feedforward_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)


@cases("reference", pick=slice(None, 1))
def test_feedforward_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("config")
def test_feedforward_follows_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
