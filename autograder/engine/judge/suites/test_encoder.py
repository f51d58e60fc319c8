"""Hidden suite for `encoder`: one post-LN layer against the reference; the stack against BertModel."""

from autograder.engine.judge.suites.common import (
    cases,
    changed_tokens,
    check_case,
    check_deterministic,
    check_follows_config,
    check_inputs_unchanged,
    check_training,
    check_unchanged,
)

COMPONENT = "encoder"
LAYER_HINT = (
    "BERT is post-LN: x = attention_norm(x + dropout(attention(x, mask))); "
    "x = output_norm(x + feed_forward(x)). The residual is added before each layer norm, not after."
)
MODEL_HINT = (
    "embeddings, then every layer in order with padding_mask(attention_mask) (None when no mask is "
    "given); pass token_type_ids on to the embeddings."
)
TRAIN_HINT = (
    "in train mode the attention's output goes through self.dropout before the residual sum: "
    "attention_norm(x + dropout(attention(x))); the feed-forward block ends in its own dropout, so "
    "output_norm(x + feed_forward(x)) adds none; nothing else is dropped out."
)
PADDING_HINT = (
    "padded keys must be blocked in every layer, whatever tokens they hold: no real position's output may depend "
    "on a padded position's token."
)


@cases("reference")
def test_encoder_layer_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"output": LAYER_HINT})


@cases("hf")
def test_encoder_matches_hf_bert(student, case, dtype):
    check_case(student, case, dtype, {"output": MODEL_HINT})


@cases("reference", "config", trained=True)
def test_encoder_trains_like_reference(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@cases("hf", trained=True)
def test_encoder_trains_like_hf_bert(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@cases("hf", pick=slice(None, 2))
def test_encoder_ignores_padding_tokens(student, case):
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
        PADDING_HINT,
    )


@cases("reference", pick=slice(1, 2))
def test_encoder_layer_leaves_inputs_unchanged(student, case):
    check_inputs_unchanged(student, case)


@cases("hf", pick=slice(None, 1))
def test_encoder_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@cases("config")
def test_encoder_follows_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
