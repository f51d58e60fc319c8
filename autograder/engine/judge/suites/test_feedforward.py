"""Hidden suite for `feedforward`: the GELU block, on inputs large enough to tell GELU approximations apart."""

from autograder.engine.judge.suites.common import (
    cases,
    check_case,
    check_deterministic,
    check_follows_config,
    check_inputs_unchanged,
    check_training,
)

COMPONENT = "feedforward"
HINT = (
    "dropout(linear2(gelu(linear1(x)))) with the exact GELU, 0.5·x·(1 + erf(x / sqrt(2))) "
    "(F.gelu's default), not the tanh approximation and not ReLU."
)
TRAIN_HINT = (
    "in train mode dropout (p = hidden_dropout_prob) comes last, after linear2: dropout(linear2(gelu(linear1(x)))); "
    "not between the two linears, not on the input."
)


@cases("reference")
def test_feedforward_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"output": HINT})


@cases("reference", "config", trained=True)
def test_feedforward_trains_like_reference(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@cases("reference", pick=slice(None, 1))
def test_feedforward_leaves_inputs_unchanged(student, case):
    check_inputs_unchanged(student, case)


@cases("reference", pick=slice(None, 1))
def test_feedforward_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@cases("config")
def test_feedforward_follows_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
