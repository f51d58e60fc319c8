"""Fixtures shared by the kit's tests, and how `make test` shares the tests out between cores."""

import os

# Before torch is imported, here and in every process a test starts: parallel workers share the cores,
# and torch's default of one thread per core in each has them spin against each other (a public check
# took 14 s instead of half a second).
os.environ["OMP_NUM_THREADS"] = "1"

import pytest  # noqa: E402
from helpers import TIME_LIMIT  # noqa: E402
from xdist.scheduler import LoadScopeScheduling  # noqa: E402

from autograder.engine.judge.limits import Limits  # noqa: E402
from autograder.engine.judge.sandbox import Sandbox  # noqa: E402

# Modules whose tests read one expensive module-scoped fixture (a whole nbgrader course, a graded class,
# the Gradescope package set up): run in parallel, each goes to one worker whole, so that the fixture is
# built once. Every other test goes wherever a worker is free.
SHARED_FIXTURE_MODULES = frozenset(
    f"tests/{name}.py"
    for name in (
        "test_nbgrader_pipeline",
        "test_breakout_pipeline",
        "test_nbgrader_environment",
        "test_variants",
        "test_platforms",
    )
)


@pytest.fixture(scope="session")
def sandbox():
    """One zygote for the gradings of a run (of each parallel worker), as grade-all shares one across a class:
    torch is imported once. Module scope started one per module and worker (a second of CPU each, 27 in all).
    A test that needs other limits starts a sandbox of its own."""
    shared = Sandbox(limits=Limits(time=TIME_LIMIT))
    yield shared
    shared.close()


class SharedFixturesTogether(LoadScopeScheduling):
    """One unit of work per test, but one per module for SHARED_FIXTURE_MODULES.

    pytest-xdist's loadgroup would do this from marks, but under pytest 9.2 it no longer groups anything
    (pytest-dev/pytest-xdist#1386). Units with more tests go first: the long modules start early.
    """

    def _split_scope(self, nodeid):
        module = nodeid.split("::", 1)[0]
        return module if module in SHARED_FIXTURE_MODULES else nodeid


def pytest_xdist_make_scheduler(config, log):
    return SharedFixturesTogether(config, log)


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: a worker per core, four at most (each grades in a sandbox of its own). A worker more kept the
    cores busy while tests waited on a time limit, when they waited longer; now that they wait 35 s in all, its
    processes only contend with the others' (on 2 cores, 288 s and 529 CPU seconds against 305 s and 576)."""
    return min(os.cpu_count() or 1, 4)
