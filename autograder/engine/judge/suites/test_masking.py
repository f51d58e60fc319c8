"""Hidden suite for `masking`: causal_mask and padding_mask, compared exactly."""

from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.suites.common import cases, check_case

COMPONENT = "masking"
HINT = HINTS[COMPONENT]


@cases("causal")
def test_causal_mask_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"mask": HINT["causal"]})


@cases("padding")
def test_padding_mask_matches_reference(student, case, dtype):
    check_case(student, case, dtype, {"mask": HINT["padding"]})
