"""Hidden suite for `seq2seq`: the encoder-decoder model against EncoderDecoderModel, decoding against generate()."""

import numpy as np

from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.properties import changed_tokens, check_deterministic, check_unchanged
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training

COMPONENT = "seq2seq"
HINT = HINTS[COMPONENT]
CUT = 2


@cases("hf")
def test_seq2seq_matches_hf_encoder_decoder(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"logits": HINT["model"]})


@cases("hf", trained=True)
def test_seq2seq_trains_like_hf_encoder_decoder(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"logits": HINT["train"]})


@cases("generate")
def test_greedy_decode_matches_hf_generate(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"tokens": HINT["decode"]})


@cases("hf", pick=slice(None, 1))
def test_seq2seq_is_causal_in_the_target(student: Student, case: Case) -> None:
    inputs = dict(case.inputs, decoder_input_ids=changed_tokens(case, "decoder_input_ids", np.s_[:, CUT:]))
    check_unchanged(
        student,
        case,
        inputs,
        "logits",
        np.s_[:, :CUT],
        f"other target tokens from position {CUT} on, logits before it",
        HINT["causal"],
    )


@cases("hf", pick=slice(None, 1))
def test_seq2seq_is_deterministic_in_eval_mode(student: Student, case: Case) -> None:
    check_deterministic(student, case)
