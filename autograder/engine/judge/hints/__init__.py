"""Every sentence a student reads about their own code, one table per kind, each by component and topic:

- the hint under a failing output or step, "Hint: ..." (failures.py: HINTS, STEPS);
- the likely mistake the diagnosis names, by component and the catalog's name of the mistake (mistakes.py:
  LIKELY): the catalog (engine/build/mistakes/) reads each entry's sentence from there, and the build writes it
  into the entry's evidence, which diagnosis.py reads; not imported here, so that the student's bundle, which
  reads the evidence, holds no copy of the table;
- why a component scores 0, and why code may not delegate its subject (engine/contract/reasons.py: ZERO,
  DELEGATION, re-exported here): in the contract, because the child raises some of them and imports nothing of
  the judge's.

tests/support/hint_evidence.py holds every sentence of these tables to its evidence, or to the code and test that say it.
"""

from autograder.engine.contract.reasons import DELEGATION, ZERO
from autograder.engine.judge.hints.failures import HINTS, PREFIX, STEPS

__all__ = ["DELEGATION", "HINTS", "PREFIX", "STEPS", "ZERO"]
