"""Every hint the hidden suites can show, with the graded mistakes that must and must not show it.

A hint is one line of feedback, "Hint: ...", under a failing output. Each is listed here by name with two
graded submissions: one whose numbers support it (it must appear) and one, failing in the same component,
whose numbers do not (it must not). Most of those submissions are the mutation tests' own: test_mutations.py
grades each and calls check_hints with its feedback, so this costs no grading of its own; test_hints.py
grades EXTRA and checks the rest.
"""

import importlib
import pkgutil

import autograder.engine.judge.suites as suites
from autograder.engine.judge import checks

HINT = "Hint: "


def every_hint():
    """{name: text} of each hint the suites define: their constants named *HINT or *HINTS (a dict of them by
    output or target), and the checks' own two (float32 only, eval mode first)."""
    found = {"checks.FLOAT32_ONLY": checks.FLOAT32_ONLY, "checks.EVAL_FIRST": checks.EVAL_FIRST}
    for info in pkgutil.iter_modules(suites.__path__):
        module = importlib.import_module(f"{suites.__name__}.{info.name}")
        for name, value in vars(module).items():
            if name.endswith(("HINT", "HINTS")):
                for key, text in value.items() if isinstance(value, dict) else [(None, value)]:
                    found.setdefault(f"{info.name}.{name}" + (f"[{key}]" if key else ""), text)
    return found


HINTS = every_hint()
BY_TEXT = {text: name for name, text in HINTS.items()}


def shown(feedback):
    """The names of the hints a feedback shows (a hint no table knows is named by its text)."""
    return {BY_TEXT.get(line[len(HINT) :], line) for line in feedback.splitlines() if line.startswith(HINT)}


# name: (a graded mistake whose numbers support the hint, one in the same component whose numbers do not).
# The ids are the catalog's, or "outside:COMPONENT:NAME" and "training:COMPONENT:NAME" for mutations.OUTSIDE and
# mutations.TRAINING_OUTSIDE; EXTRA below, graded here, for what those do not reach.
EVIDENCE = {
    "checks.FLOAT32_ONLY": ("layernorm/variance-computed-in-float32", "layernorm/unbiased-variance"),
    "common.CONFIG_HINT": ("feedforward/intermediate-size-hard-coded", "feedforward/tanh-approximation-of-gelu"),
    "common.GRADIENT_HINT": ("multihead/keys-detached", "multihead/output-projection-forgotten"),
    "checks.EVAL_FIRST": ("multihead/output-projection-forgotten", "multihead/dropout-on-the-output"),
    "test_attention.HINTS[weights]": ("attention/mask-ignored", "attention/output-from-the-scores"),
    "test_attention.HINTS[output]": (
        "attention/output-from-the-scores",
        "attention/scores-returned-instead-of-weights",
    ),
    "test_masking.CAUSAL_HINT": ("masking/causal-mask-without-its-diagonal", "masking/padding-mask-inverted"),
    "test_masking.PADDING_HINT": ("masking/padding-mask-inverted", "masking/causal-mask-upper-triangular"),
    "test_layernorm.HINT": ("layernorm/unbiased-variance", "layernorm/weight-frozen"),
    "test_layernorm.EPS_HINT": ("layernorm/eps-outside-the-square-root", "layernorm/unbiased-variance"),
    "test_layernorm.FRESH_HINT": ("extra:layernorm:weight initialised to zeros", "layernorm/eps-hard-coded"),
    "test_multihead.HINTS[weights]": (
        "multihead/heads-split-without-transposing",
        "multihead/output-projection-forgotten",
    ),
    "test_multihead.HINTS[output]": ("multihead/output-projection-forgotten", "multihead/dropout-on-the-output"),
    "test_multihead.TRAIN_HINT[output]": ("multihead/dropout-on-the-output", "multihead/output-projection-forgotten"),
    "test_feedforward.HINT": ("feedforward/tanh-approximation-of-gelu", "feedforward/dropout-missing"),
    "test_feedforward.TRAIN_HINT": ("feedforward/dropout-missing", "feedforward/tanh-approximation-of-gelu"),
    "test_embeddings.HINT": ("embeddings/positions-counted-from-1", "embeddings/dropout-missing"),
    "test_embeddings.TRAIN_HINT": ("embeddings/dropout-missing", "embeddings/positions-counted-from-1"),
    "test_embeddings.TABLE_HINT": ("embeddings/sin-and-cos-swapped", "embeddings/positions-counted-from-1"),
    "test_encoder.LAYER_HINT": ("encoder/pre-ln-instead-of-post-ln", "encoder/attention-output-not-dropped-out"),
    "test_encoder.MODEL_HINT": (
        "encoder/padding-mask-not-passed-to-the-layers",
        "encoder/attention-output-not-dropped-out",
    ),
    "test_encoder.TRAIN_HINT": ("encoder/attention-output-not-dropped-out", "encoder/pre-ln-instead-of-post-ln"),
    "test_decoder.LAYER_HINT": (
        "decoder/cross-attention-before-self-attention",
        "decoder/cross-attention-output-not-dropped-out",
    ),
    "test_decoder.MODEL_HINT": ("decoder/no-causal-mask", "decoder/cross-attention-output-not-dropped-out"),
    "test_decoder.TRAIN_HINT": ("decoder/cross-attention-output-not-dropped-out", "decoder/no-causal-mask"),
    "test_heads.HINTS[LanguageModelHead]": (
        "heads/log-softmax-applied-to-the-logits",
        "heads/classifier-reads-the-last-position",
    ),
    "test_heads.HINTS[SequenceClassificationHead]": (
        "heads/classifier-reads-the-last-position",
        "heads/log-softmax-applied-to-the-logits",
    ),
    "test_heads.HINTS[TransformerForSequenceClassification]": (
        "heads/classifier-reads-the-last-position",
        "heads/dropout-after-the-classifier",
    ),
    "test_heads.TRAIN_HINTS[LanguageModelHead]": (
        "extra:heads:dropout in the LM head",
        "heads/log-softmax-applied-to-the-logits",
    ),
    "test_heads.TRAIN_HINTS[SequenceClassificationHead]": (
        "heads/dropout-after-the-classifier",
        "heads/classifier-reads-the-last-position",
    ),
    "test_heads.TRAIN_HINTS[TransformerForSequenceClassification]": (
        "extra:heads:dropout on the encoder's output",
        "heads/classifier-reads-the-last-position",
    ),
    "test_seq2seq.MODEL_HINT": (
        "seq2seq/source-padding-not-passed-to-cross-attention",
        "seq2seq/finished-rows-not-padded",
    ),
    "test_seq2seq.TRAIN_HINT": (
        "extra:seq2seq:dropout on the logits",
        "seq2seq/source-padding-not-passed-to-cross-attention",
    ),
    "test_seq2seq.DECODE_HINT": (
        "seq2seq/finished-rows-not-padded",
        "seq2seq/source-padding-not-passed-to-cross-attention",
    ),
}
# Mistakes that the catalog and mutations.py do not hold, graded here: (component, edits).
EXTRA = {
    "extra:layernorm:weight initialised to zeros": (
        "layernorm",
        [("nn.Parameter(torch.ones(hidden_size))", "nn.Parameter(torch.zeros(hidden_size))")],
    ),
    "extra:heads:dropout in the LM head": (
        "heads",
        [
            (
                "return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))",
                "return self.decoder(F.dropout(self.layer_norm(F.gelu(self.dense(hidden_states))), 0.1, self.training))",
            )
        ],
    ),
    "extra:heads:dropout on the encoder's output": (
        "heads",
        [
            (
                "return self.head(self.encoder(input_ids, attention_mask, token_type_ids))",
                "return self.head(nn.functional.dropout(self.encoder(input_ids, attention_mask, token_type_ids), 0.1, self.training))",
            )
        ],
    ),
    "extra:seq2seq:dropout on the logits": (
        "seq2seq",
        [
            (
                "return self.lm_head(hidden_states)",
                "return nn.functional.dropout(self.lm_head(hidden_states), 0.1, self.training)",
            )
        ],
    ),
}
# The property tests' hints, and the whole-stack check's, checked by test_hints.py on the suites' functions.
PROPERTY_HINTS = {
    "common.DETERMINISTIC_HINT",
    "test_encoder.PADDING_HINT",
    "test_decoder.CAUSAL_HINT",
    "test_seq2seq.CAUSAL_HINT",
    "test_integration.HINT",
}


def check_hints(case_id, feedback):
    """The hints of EVIDENCE for this graded mistake: said where it is their evidence, unsaid where it is not."""
    said = shown(feedback)
    # A hint written inline in a suite, with no name here, would escape every check of this table.
    assert said <= set(HINTS), f"{case_id}: hints no table knows: {sorted(said - set(HINTS))}"
    for name, (right, wrong) in EVIDENCE.items():
        if case_id == right:
            assert name in said, f"{name} should be said for {case_id}:\n{feedback}"
        if case_id == wrong:
            assert name not in said, f"{name} should not be said for {case_id}:\n{feedback}"
