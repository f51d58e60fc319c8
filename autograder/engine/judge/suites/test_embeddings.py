"""Hidden suite for `embeddings`: BERT's input embeddings and the sinusoidal table."""

from autograder.engine.judge.suites.common import (
    cases,
    check_case,
    check_deterministic,
    check_follows_config,
    check_training,
)

COMPONENT = "embeddings"
HINT = (
    "token + position + token type, then layer_norm, then dropout; positions are 0..T-1 "
    "(torch.arange(T)), and missing token_type_ids mean all zeros."
)
TRAIN_HINT = (
    "in train mode dropout (p = hidden_dropout_prob) comes after the layer norm, on the sum's normalised value: "
    "dropout(layer_norm(token + position + token type)); not before the layer norm, not on one embedding alone."
)
TABLE_HINT = (
    "PE[p, 2i] = sin(p / 10000^(2i/d_model)) in even columns and PE[p, 2i+1] = cos(same angle) "
    "in odd columns; the exponent uses 2i (the even column index), not the column index itself."
)


@cases("reference")
def test_embeddings_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"output": HINT})


@cases("hf")
def test_embeddings_matches_hf_bert_embeddings(student, case, dtype):
    check_case(student, case, dtype, {"output": HINT})


@cases("reference", "config", trained=True)
def test_embeddings_train_like_reference(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@cases("hf", trained=True)
def test_embeddings_train_like_hf_bert_embeddings(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@cases("hf", pick=slice(None, 1))
def test_embeddings_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@cases("sinusoidal")
def test_sinusoidal_table_matches_paper(student, case, dtype):
    check_case(student, case, dtype, {"table": TABLE_HINT})


@cases("config")
def test_embeddings_follow_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
