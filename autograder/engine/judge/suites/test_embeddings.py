"""Hidden suite for `embeddings`: BERT's input embeddings and the sinusoidal table."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import check_deterministic
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_follows_config

COMPONENT = "embeddings"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_embeddings_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["output"]})


@cases("hf")
def test_embeddings_matches_hf_bert_embeddings(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["output"]})


@cases("reference", "config", trained=True)
def test_embeddings_train_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", trained=True)
def test_embeddings_train_like_hf_bert_embeddings(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", pick=slice(None, 1))
def test_embeddings_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("sinusoidal")
def test_sinusoidal_table_matches_paper(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"table": HINT["table"]})


@cases("config")
def test_embeddings_follow_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
