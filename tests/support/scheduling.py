"""How `make test` shares the tests out between cores (tests/conftest.py wires it into pytest-xdist)."""

import os

from xdist.scheduler import LoadScopeScheduling

# Modules whose tests read one expensive module-scoped fixture (a whole nbgrader course, a graded class,
# the Gradescope package set up), or what a process keeps once read (every component's cases and evidence, and the
# elements the diagnosis samples of them): run in parallel, each goes to one worker whole, so that it is built
# once. Every other test goes wherever a worker is free.
SHARED_FIXTURE_MODULES = frozenset(
    f"tests/{name}.py"
    for name in (
        "system/test_nbgrader_pipeline",
        "system/test_breakout_pipeline",
        "system/test_nbgrader_environment",
        "system/test_variants",
        "system/test_platforms",
        "unit/test_mutations",
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
