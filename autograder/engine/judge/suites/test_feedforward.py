"""Hidden suite for `feedforward`: the GELU block, on inputs large enough to tell GELU approximations apart."""
import pytest

from autograder.engine.judge.fixtures import of_kind, with_dtypes
from autograder.engine.judge.suites.common import check_case, check_deterministic, check_follows_config, check_inputs_unchanged, check_training

COMPONENT = "feedforward"
HINT = (
    "dropout(linear2(gelu(linear1(x)))) with the exact GELU, 0.5·x·(1 + erf(x / sqrt(2))) "
    "(F.gelu's default), not the tanh approximation and not ReLU."
)
TRAIN_HINT = (
    "in train mode dropout (p = hidden_dropout_prob) comes last, after linear2: dropout(linear2(gelu(linear1(x)))); "
    "not between the two linears, not on the input."
)


@pytest.mark.parametrize("case, dtype", with_dtypes(COMPONENT, "reference"))
def test_feedforward_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"output": HINT})


@pytest.mark.parametrize("case, dtype", with_dtypes(COMPONENT, "reference", "config", trained=True))
def test_feedforward_trains_like_reference(student, case, dtype):
    check_training(student, case, dtype, {"output": TRAIN_HINT})


@pytest.mark.parametrize("case", of_kind(COMPONENT, "reference")[:1], ids=str)
def test_feedforward_leaves_inputs_unchanged(student, case):
    check_inputs_unchanged(student, case)


@pytest.mark.parametrize("case", of_kind(COMPONENT, "reference")[:1], ids=str)
def test_feedforward_is_deterministic_in_eval_mode(student, case):
    check_deterministic(student, case)


@pytest.mark.parametrize("case, dtype", with_dtypes(COMPONENT, "config"))
def test_feedforward_follows_the_config(student, case, dtype):
    check_follows_config(student, case, dtype)
