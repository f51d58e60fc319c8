"""Hidden suite for `heads`: the LM head, the classification head and the classifier model against HF."""

from autograder.engine.judge.suites.common import (
    cases,
    check_case,
    check_deterministic,
    check_follows_config,
    check_training,
)

COMPONENT = "heads"
HINTS = {
    "LanguageModelHead": "logits = decoder(layer_norm(gelu(dense(h)))) with the exact GELU; no softmax: "
    "logits are unnormalised scores (cross-entropy applies log-softmax itself).",
    "SequenceClassificationHead": "logits = classifier(dropout(tanh(pooler(h[:, 0])))), from the first position "
    "(the [CLS] token), unnormalised: no softmax or log_softmax.",
    "TransformerForSequenceClassification": "head(encoder(input_ids, attention_mask, token_type_ids)): "
    "pass both masks and token types through.",
}
TRAIN_HINTS = {
    "LanguageModelHead": "the LM head has no dropout: in train mode it computes what it computes in eval mode.",
    "SequenceClassificationHead": "in train mode dropout (p = hidden_dropout_prob) sits between the pooler and the "
    "classifier: classifier(dropout(tanh(pooler(h[:, 0])))); not after the classifier, not before the pooler.",
    "TransformerForSequenceClassification": "in train mode the encoder's dropouts and the head's one apply, nothing else: "
    "head(encoder(input_ids, attention_mask, token_type_ids)).",
}


@cases("hf")
def test_heads_match_hf(student, case, dtype):
    check_case(student, case, dtype, {"logits": HINTS[case.target]})


@cases("hf-model")
def test_sequence_classifier_matches_hf_bert(student, case, dtype):
    check_case(student, case, dtype, {"output": HINTS[case.target]})


@cases("config", trained=True)
def test_heads_train_like_reference(student, case, dtype):
    check_training(student, case, dtype, dict.fromkeys(case.outputs, TRAIN_HINTS[case.target]))


@cases("hf", "hf-model", trained=True)
def test_heads_train_like_hf(student, case, dtype):
    check_training(student, case, dtype, dict.fromkeys(case.outputs, TRAIN_HINTS[case.target]))


@cases("hf-model", pick=slice(None, 1))
def test_sequence_classifier_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@cases("config")
def test_heads_follow_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
