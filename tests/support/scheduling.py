"""How `make test` shares the tests out between cores (tests/conftest.py wires it into pytest-xdist)."""

import os

from xdist.scheduler import LoadScopeScheduling

# Modules whose tests read one expensive module-scoped fixture (a whole nbgrader course, a graded class,
# the Gradescope package set up): run in parallel, each goes to one worker whole, so that the fixture is
# built once. Every other test goes wherever a worker is free.
SHARED_FIXTURE_MODULES = frozenset(
    f"tests/system/{name}.py"
    for name in (
        "test_nbgrader_pipeline",
        "test_breakout_pipeline",
        "test_nbgrader_environment",
        "test_variants",
        "test_platforms",
    )
)


class SharedFixturesTogether(LoadScopeScheduling):
    """One unit of work per test, but one per module for SHARED_FIXTURE_MODULES.

    pytest-xdist's loadgroup would do this from marks, but under pytest 9.2 it no longer groups anything
    (pytest-dev/pytest-xdist#1386). Units with more tests go first: the long modules start early.
    """

    def _split_scope(self, nodeid):
        module = nodeid.split("::", 1)[0]
        return module if module in SHARED_FIXTURE_MODULES else nodeid


def workers():
    """`-n auto`: a worker per core, four at most (each grades in a sandbox of its own). A worker more kept the
    cores busy while tests waited on a time limit, when they waited longer; now that they wait little, its
    processes only contend with the others'."""
    return min(os.cpu_count() or 1, 4)
