"""Hidden suite for `encoder`: one post-LN layer against the reference; the stack against BertModel."""

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import (
    changed_tokens,
    check_deterministic,
    check_inputs_unchanged,
    check_unchanged,
)
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.suites.unusual_cases import check_follows_config

COMPONENT = "encoder"
HINT = HINTS[COMPONENT]


@cases("reference")
def test_encoder_layer_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["layer"]})


@cases("hf")
def test_encoder_matches_hf_bert(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["model"]})


@cases("reference", "config", trained=True)
def test_encoder_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", trained=True)
def test_encoder_trains_like_hf_bert(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", pick=slice(None, 2))
def test_encoder_ignores_padding_tokens(student: Student, case: Case) -> None:
    """What sits at padded positions must not change any real position's output."""
    padded = case.inputs["attention_mask"] == 0
    inputs = dict(case.inputs, input_ids=changed_tokens(case, "input_ids", padded))
    # Only real positions are compared: a padded position's own output may depend on its token.
    check_unchanged(
        student,
        case,
        inputs,
        "output",
        ~padded,
        "other tokens at the padded positions, output at the real ones",
        HINT["padding"],
    )


@cases("reference", pick=slice(1, 2))
def test_encoder_layer_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)


@cases("hf", pick=slice(None, 1))
def test_encoder_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("config")
def test_encoder_follows_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
