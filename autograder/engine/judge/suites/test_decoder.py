"""Hidden suite for `decoder`: one layer against the reference; the stack against a BERT decoder."""

import numpy as np

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

COMPONENT = "decoder"
HINT = HINTS[COMPONENT]
CUT = 3  # positions before this one must not see the tokens after it


@cases("reference")
def test_decoder_layer_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["layer"]})


@cases("hf")
def test_decoder_matches_hf_bert_decoder(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"output": HINT["model"]})


@cases("reference", "config", trained=True)
def test_decoder_trains_like_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", trained=True)
def test_decoder_trains_like_hf_bert_decoder(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"output": HINT["train"]})


@cases("hf", pick=slice(None, 2))
def test_decoder_is_causal(student: Student, case: Case) -> None:
    """Changing a later token never changes an earlier position's output."""
    inputs = dict(case.inputs, input_ids=changed_tokens(case, "input_ids", np.s_[:, CUT:]))
    check_unchanged(
        student,
        case,
        inputs,
        "output",
        np.s_[:, :CUT],
        f"other tokens from position {CUT} on, output before it",
        HINT["causal"],
    )


@cases("reference", pick=slice(1, 2))
def test_decoder_layer_leaves_inputs_unchanged(student: Student, case: Case) -> None:
    check_inputs_unchanged(student, case)


@cases("hf", pick=slice(None, 1))
def test_decoder_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)


@cases("config")
def test_decoder_follows_the_config(student: Student, case: Case, dtype: str | None) -> None:
    check_follows_config(student, case, dtype)
