"""Hidden suite for `layernorm`: BERT's LayerNorm, including an eps large enough to see where it goes."""

from autograder.engine.judge.suites.common import (
    cases,
    check_case,
    check_case_beside_the_usual,
    check_inputs_unchanged,
    check_training,
)

COMPONENT = "layernorm"
HINT = (
    "normalise over the last dimension only: mean and BIASED variance (divide by D: unbiased=False), "
    "then weight * (x - mean) / sqrt(var + eps) + bias."
)
EPS_HINT = "with eps=0.5 the answer shows where eps goes: sqrt(var + eps), not sqrt(var) + eps; and use self.eps, not a constant."
FRESH_HINT = "a new LayerNorm must start with weight = ones and bias = zeros, before any weights are loaded."


@cases("reference")
def test_layernorm_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"output": HINT})


@cases("large-eps")
def test_layernorm_puts_eps_inside_sqrt(student, case, dtype):
    check_case_beside_the_usual(student, case, dtype, EPS_HINT)


@cases("fresh")
def test_layernorm_starts_as_plain_normalisation(student, case, dtype):
    check_case_beside_the_usual(student, case, dtype, FRESH_HINT)


@cases("reference", "large-eps", "fresh", trained=True)
def test_layernorm_trains_like_reference(student, case, dtype):
    """The input, weight and bias all get their gradients."""
    check_training(student, case, dtype, {"output": HINT})


@cases("reference", pick=slice(None, 1))
def test_layernorm_leaves_inputs_unchanged(student, case):
    check_inputs_unchanged(student, case)
