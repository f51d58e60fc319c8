"""Every sentence a student reads about their own code, one module per kind, each by component and topic:

- the hint under a failing output or step, "Hint: ..." (failures.py: HINTS and STEPS);

tests/hint_evidence.py holds every sentence of these tables to its evidence or to a test.
"""

from autograder.engine.judge.hints.failures import HINTS, PREFIX, STEPS

__all__ = ["HINTS", "PREFIX", "STEPS"]
