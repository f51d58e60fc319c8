"""Hidden suite for `multihead`: MultiHeadAttention against the reference and against BertModel's layer 0."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_deterministic, check_inputs_unchanged
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_follows_config

COMPONENT = "multihead"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_multihead_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"weights": HINT["weights"], "output": HINT["output"]})


@cases("hf")
def test_multihead_matches_hf_bert_attention(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"weights": HINT["weights"], "output": HINT["output"]})


@cases("reference", "config", trained=True)
def test_multihead_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    """Graded on the output alone in train mode: BERT returns its weights after dropout, the reference before."""
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", trained=True)
def test_multihead_trains_like_hf_bert_attention(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("reference", pick=slice(3, 5))
def test_multihead_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)


@cases("hf")
def test_multihead_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("config")
def test_multihead_follows_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
