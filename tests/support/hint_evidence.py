"""Every sentence a student reads about their code (engine/judge/hints/), with what holds it to the truth.

A hint is one line of feedback, "Hint: ...", under a failing output. Each is listed here by name with two
graded submissions: one whose numbers support it (it must appear) and one, failing in the same component,
whose numbers do not (it must not). Most of those submissions are the mutation tests' own: they grade each
(tests/system/test_mutations.py: the catalog's, mutations.OUTSIDE and mutations.TRAINING_OUTSIDE) and call
check_hints with its feedback, so this costs no grading of its own; tests/system/test_hints.py grades EXTRA, and
tests/unit/test_hints.py checks the rest.

A likely mistake's sentence is its catalog entry's: tests/unit/test_mutations.py checks that the diagnosis names
every entry of the evidence with it, and tests/system/test_mutations.py grades the entries (every one under `make catalog`) and checks the same. A reason to score 0 is named here with the test that makes a submission score 0 for it and
holds its feedback to it (reasons_said), or in UNPROVOKED with why no test does; tests/unit/test_sentences.py checks
that every sentence of the tables is held one of these ways, and said by the kit.
"""

import re
import string

from autograder.engine.judge.hints import DELEGATION, HINT, ZERO
from autograder.engine.judge.hints import HINTS as TABLE


def every_hint():
    """{"component.topic": text} of each hint in the table the suites read (engine/judge/hints/failures.py)."""
    return {f"{component}.{topic}": text for component, topics in TABLE.items() for topic, text in topics.items()}


HINTS = every_hint()
BY_TEXT = {text: name for name, text in HINTS.items()}


def shown(feedback):
    """The names of the hints a feedback shows (a hint no table knows is named by its text)."""
    return {BY_TEXT.get(line[len(HINT) :], line) for line in feedback.splitlines() if line.startswith(HINT)}


# name: (a graded mistake whose numbers support the hint, one in the same component whose numbers do not).
# The ids are the catalog's, or "outside:COMPONENT:NAME" and "training:COMPONENT:NAME" for mutations.OUTSIDE and
# mutations.TRAINING_OUTSIDE; EXTRA below, graded here, for what those do not reach.
EVIDENCE = {
    "any.float32-only": ("layernorm/variance-computed-in-float32", "layernorm/unbiased-variance"),
    "any.config": ("feedforward/intermediate-size-hard-coded", "feedforward/tanh-approximation-of-gelu"),
    "any.gradient": ("multihead/keys-detached", "multihead/output-projection-forgotten"),
    "any.eval-first": ("multihead/output-projection-forgotten", "multihead/dropout-on-the-output"),
    "any.changing": ("feedforward/dropout-active-in-eval-mode", "feedforward/tanh-approximation-of-gelu"),
    "attention.weights": ("attention/mask-ignored", "attention/output-from-the-scores"),
    "attention.output": (
        "attention/output-from-the-scores",
        "attention/scores-returned-instead-of-weights",
    ),
    "masking.causal": ("masking/causal-mask-without-its-diagonal", "masking/padding-mask-inverted"),
    "masking.padding": ("masking/padding-mask-inverted", "masking/causal-mask-upper-triangular"),
    "layernorm.output": ("layernorm/unbiased-variance", "layernorm/weight-frozen"),
    "layernorm.eps": ("layernorm/eps-outside-the-square-root", "layernorm/unbiased-variance"),
    "layernorm.fresh": ("extra:layernorm:weight initialised to zeros", "layernorm/eps-hard-coded"),
    "multihead.weights": (
        "multihead/heads-split-without-transposing",
        "multihead/output-projection-forgotten",
    ),
    "multihead.output": ("multihead/output-projection-forgotten", "multihead/dropout-on-the-output"),
    "multihead.train": ("multihead/dropout-on-the-output", "multihead/output-projection-forgotten"),
    "feedforward.output": ("feedforward/tanh-approximation-of-gelu", "feedforward/dropout-active-in-eval-mode"),
    "feedforward.train": ("feedforward/dropout-missing", "feedforward/tanh-approximation-of-gelu"),
    "embeddings.output": ("embeddings/positions-counted-from-1", "embeddings/dropout-missing"),
    "embeddings.train": ("embeddings/dropout-missing", "embeddings/positions-counted-from-1"),
    "embeddings.table": ("embeddings/sin-and-cos-swapped", "embeddings/positions-counted-from-1"),
    "encoder.layer": ("encoder/pre-ln-instead-of-post-ln", "encoder/attention-output-not-dropped-out"),
    "encoder.model": (
        "encoder/padding-mask-not-passed-to-the-layers",
        "encoder/attention-output-not-dropped-out",
    ),
    "encoder.train": ("encoder/attention-output-not-dropped-out", "encoder/pre-ln-instead-of-post-ln"),
    "decoder.layer": (
        "decoder/cross-attention-before-self-attention",
        "decoder/cross-attention-output-not-dropped-out",
    ),
    "decoder.model": ("decoder/no-causal-mask", "decoder/cross-attention-output-not-dropped-out"),
    "decoder.train": ("decoder/cross-attention-output-not-dropped-out", "decoder/no-causal-mask"),
    "heads.LanguageModelHead": (
        "heads/log-softmax-applied-to-the-logits",
        "heads/classifier-reads-the-last-position",
    ),
    "heads.SequenceClassificationHead": (
        "heads/classifier-reads-the-last-position",
        "heads/log-softmax-applied-to-the-logits",
    ),
    "heads.TransformerForSequenceClassification": (
        "heads/classifier-reads-the-last-position",
        "heads/dropout-after-the-classifier",
    ),
    "heads.train LanguageModelHead": (
        "extra:heads:dropout in the LM head",
        "heads/log-softmax-applied-to-the-logits",
    ),
    "heads.train SequenceClassificationHead": (
        "heads/dropout-after-the-classifier",
        "heads/classifier-reads-the-last-position",
    ),
    "heads.train TransformerForSequenceClassification": (
        "extra:heads:dropout on the encoder's output",
        "heads/classifier-reads-the-last-position",
    ),
    "generation.probabilities": (
        "generation/temperature-multiplied",
        "generation/beam-search-without-the-length-penalty",
    ),
    "generation.draw": (
        "generation/sample-next-ignores-top-k-and-top-p",
        "generation/beam-search-without-the-length-penalty",
    ),
    "generation.cache": ("generation/cache-not-updated", "generation/temperature-multiplied"),
    "generation.beam": ("generation/beam-search-without-the-length-penalty", "generation/temperature-multiplied"),
    "seq2seq.model": (
        "seq2seq/source-padding-not-passed-to-cross-attention",
        "seq2seq/finished-rows-not-padded",
    ),
    "seq2seq.train": (
        "extra:seq2seq:dropout on the logits",
        "seq2seq/source-padding-not-passed-to-cross-attention",
    ),
    "seq2seq.decode": (
        "seq2seq/finished-rows-not-padded",
        "seq2seq/source-padding-not-passed-to-cross-attention",
    ),
}
# Mistakes that the catalog and mutations.py do not hold, graded by tests/system/test_hints.py: (component, edits).
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
# The check against a real checkpoint's hint, said and unsaid in test_pretrained.py.
CHECKPOINT_HINTS = {"encoder.pretrained"}
# The property tests' hints, and the whole-stack check's, checked by test_hints.py on the suites' functions.
PROPERTY_HINTS = {
    "any.deterministic",
    "encoder.padding",
    "decoder.causal",
    "seq2seq.causal",
    "integration.output",
}


def check_hints(case_id, feedback):
    """The hints of EVIDENCE for this graded mistake: said where it is their evidence, unsaid where it is not."""
    said = shown(feedback)
    # A hint written inline in a suite, outside the table, would escape every check of this file.
    assert said <= set(HINTS), f"{case_id}: hints the table does not hold: {sorted(said - set(HINTS))}"
    for name, (right, wrong) in EVIDENCE.items():
        if case_id == right:
            assert name in said, f"{name} should be said for {case_id}:\n{feedback}"
        if case_id == wrong:
            assert name not in said, f"{name} should not be said for {case_id}:\n{feedback}"


def every_reason():
    """{"zero.KEY" or "delegation.COMPONENT.TOPIC": format} of each reason in the table (engine/contract/reasons.py)."""
    reasons = {f"zero.{key}": text for key, text in ZERO.items()}
    reasons |= {f"delegation.{c}.{topic}": text for c, topics in DELEGATION.items() for topic, text in topics.items()}
    return reasons


REASONS = every_reason()


def _pattern(text):
    """A regular expression matching the reason's format with any values in its fields."""
    return re.compile(
        "".join(
            re.escape(literal) + (".+?" if field is not None else "")
            for literal, field, _, _ in string.Formatter().parse(text)
        )
    )


PATTERNS = {name: _pattern(text) for name, text in REASONS.items()}


def reasons_said(feedback):
    """The names of the reasons the text says."""
    return {name for name, pattern in PATTERNS.items() if pattern.search(feedback or "")}


# name: "module::test" (the module by its path under tests/) that makes a submission say it, and asserts that it
# does (reasons_said).
REASON_TESTS = {
    "zero.time": "system/test_broken::test_infinite_loop_times_out_one_component",
    "zero.slept": "system/test_broken::test_a_sleeping_component_is_stopped_by_the_wall_clock",
    "zero.crashed": "system/test_broken::test_crash_in_forward_scores_zero_with_a_message",
    "zero.memory": "system/test_hostile::test_memory_of_all_a_components_processes_is_bounded",
    "zero.held": "system/test_hostile::test_held_code_scores_zero_until_an_instructor_accepts_it",
    "zero.tensor subclass": "system/test_hostile::test_a_tensor_subclass_made_at_run_time_is_refused",
    "zero.callback": "system/test_hostile::test_a_callback_torch_runs_inside_its_own_call_is_refused",
    "zero.foreign argument": "system/test_hostile::test_an_object_whose_methods_torch_would_run_is_refused",
    "delegation.any.transformers": "system/test_broken::test_delegating_to_a_library_scores_zero",
    "delegation.attention.kernel": "system/test_broken::test_delegating_to_a_library_scores_zero",
    "delegation.layernorm.kernel": "system/test_broken::test_delegating_to_a_library_scores_zero",
    "delegation.multihead.kernel": "system/test_broken::test_delegating_to_a_library_scores_zero",
    "delegation.training.kernel": "system/test_extensions::test_calling_torchs_clip_grad_norm_scores_training_zero_with_the_reason",
    "delegation.any.named at": "system/test_broken::test_delegation_is_seen_however_it_is_spelled_and_named_with_its_line",
    "delegation.any.spread": "system/test_hostile::test_a_kernel_named_and_run_where_the_tripwire_does_not_watch_scores_zero",
    "delegation.any.never ran": "system/test_broken::test_a_kernel_in_a_branch_that_never_runs_keeps_the_score_with_a_warning",
    "zero.unreadable": "system/test_broken::test_unreadable_submission_scores_zero_with_a_note",
    "zero.used up": "system/test_broken::test_a_submission_that_used_up_its_time_scores_zero_in_the_parts_left",
    "zero.threads": "system/test_hostile::test_threads_and_processes_beyond_their_bound_end_the_component",
    "zero.processes": "system/test_hostile::test_threads_and_processes_beyond_their_bound_end_the_component",
}
# name: why no test makes a submission say it; each is still held to the code that says it (test_sentences.py).
UNPROVOKED = {
    "zero.stopped before": "a child dead between two requests: the crash test's child dies during one",
    "zero.refused reply": "a reply the protocol refuses: the child's server frames every reply, so only a forged "
    "child could send one",
    "zero.not an answer": "a reply that is not an answer: likewise",
}
