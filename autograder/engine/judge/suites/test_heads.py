"""Hidden suite for `heads`: the LM head, the classification head and the classifier model against HF."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_deterministic
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_follows_config

COMPONENT = "heads"
HINT = HINTS[COMPONENT]


@cases("hf")
def test_heads_match_hf(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"logits": HINT[case.target]})


@cases("hf-model")
def test_sequence_classifier_matches_hf_bert(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT[case.target]})


@cases("config", trained=True)
def test_heads_train_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, dict.fromkeys(case.outputs, HINT[f"train {case.target}"]))


@cases("hf", "hf-model", trained=True)
def test_heads_train_like_hf(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, dict.fromkeys(case.outputs, HINT[f"train {case.target}"]))


@cases("hf-model", pick=slice(None, 1))
def test_sequence_classifier_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("config")
def test_heads_follow_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
