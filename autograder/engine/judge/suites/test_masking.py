"""Hidden suite for `masking`: causal_mask and padding_mask, compared exactly."""

from autograder.engine.judge.suites.common import cases, check_case

COMPONENT = "masking"
CAUSAL_HINT = "True at [i, j] exactly where j <= i: the diagonal is included (torch.tril), and the dtype is torch.bool."
PADDING_HINT = "True at real tokens (attention_mask == 1), shaped (B, 1, 1, S) so it broadcasts over heads and queries."


@cases("causal")
def test_causal_mask_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"mask": CAUSAL_HINT})


@cases("padding")
def test_padding_mask_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"mask": PADDING_HINT})
