"""Hidden suite for `multihead`: MultiHeadAttention against the reference and against BertModel's layer 0."""

from autograder.engine.judge.suites.common import (
    cases,
    check_case,
    check_deterministic,
    check_follows_config,
    check_inputs_unchanged,
    check_training,
)

COMPONENT = "multihead"
HINTS = {
    "weights": "weights are (B, H, T, S), one (T, S) map per head: each projection split into heads as "
    ".view(B, T, H, Dh).transpose(1, 2) gives them; queries from hidden_states, keys and values from "
    "key_value_states when it is given.",
    "output": "merge the heads back with .transpose(1, 2).reshape(B, T, D), in head order, then apply the "
    "output projection (if weights pass, the mistake is after the attention).",
}
TRAIN_HINT = {
    "output": "in train mode dropout (self.dropout, p = attention_probs_dropout_prob) applies to the attention "
    "probabilities, after the softmax and before they weight the values: context = dropout(weights) @ v; nowhere else.",
}


@cases("reference")
def test_multihead_matches_reference(student, case, dtype):
    check_case(student, case, dtype, HINTS)


@cases("hf")
def test_multihead_matches_hf_bert_attention(student, case, dtype):
    check_case(student, case, dtype, HINTS)


@cases("reference", "config", trained=True)
def test_multihead_trains_like_reference(student, case, dtype):
    """Graded on the output alone in train mode: BERT returns its weights after dropout, the reference before."""
    check_training(student, case, dtype, TRAIN_HINT)


@cases("hf", trained=True)
def test_multihead_trains_like_hf_bert_attention(student, case, dtype):
    check_training(student, case, dtype, TRAIN_HINT)


@cases("reference", pick=slice(3, 5))
def test_multihead_leaves_inputs_unchanged(student, case):
    check_inputs_unchanged(student, case)


@cases("hf")
def test_multihead_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@cases("config")
def test_multihead_follows_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
