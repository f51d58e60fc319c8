"""Hidden suite for `seq2seq`: the encoder-decoder model against EncoderDecoderModel, decoding against generate()."""

import numpy as np

from autograder.engine.judge.suites.common import (
    cases,
    changed_tokens,
    check_case,
    check_deterministic,
    check_training,
    check_unchanged,
)

COMPONENT = "seq2seq"
MODEL_HINT = (
    "encode the source with attention_mask, decode decoder_input_ids with decoder_attention_mask as the "
    "target mask and attention_mask as the cross-attention mask, then lm_head."
)
DECODE_HINT = (
    "start every row with bos_token_id; each step append the arg-max of the LAST position's logits; once a "
    "row has emitted eos_token_id, append pad_token_id to it; stop as soon as every row has finished, or "
    "after max_new_tokens steps."
)
TRAIN_HINT = "in train mode the dropouts are the encoder's and the decoder's own; the model adds none. " + MODEL_HINT
CAUSAL_HINT = "the decoder's self-attention must be causal, also inside the full model."
CUT = 2


@cases("hf")
def test_seq2seq_matches_hf_encoder_decoder(student, case, dtype):
    check_case(student, case, dtype, {"logits": MODEL_HINT})


@cases("hf", trained=True)
def test_seq2seq_trains_like_hf_encoder_decoder(student, case, dtype):
    check_training(student, case, dtype, {"logits": TRAIN_HINT})


@cases("generate")
def test_greedy_decode_matches_hf_generate(student, case, dtype):
    check_case(student, case, dtype, {"tokens": DECODE_HINT})


@cases("hf", pick=slice(None, 1))
def test_seq2seq_is_causal_in_the_target(student, case):
    inputs = dict(case.inputs, decoder_input_ids=changed_tokens(case, "decoder_input_ids", np.s_[:, CUT:]))
    check_unchanged(
        student,
        case,
        inputs,
        "logits",
        np.s_[:, :CUT],
        f"other target tokens from position {CUT} on, logits before it",
        CAUSAL_HINT,
    )


@cases("hf", pick=slice(None, 1))
def test_seq2seq_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)
