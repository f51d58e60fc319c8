"""Hints said by gradings: the mistakes of support/hint_evidence.py's EXTRA, which the mutation tests do not grade,
each graded by its component's hidden suites in this process (helpers.graded_here), say the hints their numbers
support and no other; and a bias registered as a buffer reads only that it is not a parameter. (The table's own
checks, and the property tests' hints on a stand-in for the student's process: tests/unit/test_hints.py.)"""

import pytest
from support.helpers import graded_here
from support.hint_evidence import EXTRA, check_hints, shown

from autograder.engine.judge.diagnosis import LIKELY_MISTAKE


@pytest.mark.parametrize("case_id", sorted(EXTRA))
def test_mistakes_outside_the_mutations_say_their_hints(case_id):
    component, edits = EXTRA[case_id]
    own = graded_here(component, edits)
    assert own.score < own.points, own.feedback()
    check_hints(case_id, own.feedback())


def test_a_bias_registered_as_a_buffer_reads_only_that_it_is_not_a_parameter():
    """Its values would be right: no hint and no likely mistake may guess at a formula (issue 35's new student)."""
    edits = [
        ("self.bias = nn.Parameter(torch.zeros(hidden_size))", 'self.register_buffer("bias", torch.zeros(hidden_size))')
    ]
    feedback = graded_here("layernorm", edits).feedback()
    assert "LayerNorm has no parameter bias" in feedback and shown(feedback) == set(), feedback
    assert LIKELY_MISTAKE not in feedback, feedback
