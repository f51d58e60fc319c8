"""What every kit test shares: the thread count, its kind by folder, and how `make test` shares the tests out.

A test is a unit test or a system test by where it lives (docs/CHANGING.md): tests/unit/ starts no process and
runs in this one (tests/unit/conftest.py refuses any process it starts), running nothing whole; tests/system/ grades
(in the jail or in process), trains, loads a real checkpoint, runs kernels, nbgrader or the kit's commands. Each is marked so (`pytest -m unit`), and a test elsewhere is refused.
"""

import os

# Before torch is imported, here and in every process a test starts: parallel workers share the cores,
# and torch's default of one thread per core in each has them spin against each other (a public check
# took 14 s instead of half a second).
os.environ["OMP_NUM_THREADS"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from support.scheduling import SharedFixturesTogether, workers  # noqa: E402

TESTS = Path(__file__).parent
KINDS = ("unit", "system")


def pytest_collection_modifyitems(config, items):
    for item in items:
        kind = item.path.relative_to(TESTS).parts[0]
        if kind not in KINDS:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in tests/unit or tests/system (docs/CHANGING.md)")
        marked = {mark.name for mark in item.iter_markers() if mark.name in KINDS}
        if marked - {kind}:
            raise pytest.UsageError(
                f"{item.nodeid} is marked {', '.join(sorted(marked))}: its folder says it is {kind}"
            )
        item.add_marker(kind)


def pytest_xdist_make_scheduler(config, log):
    return SharedFixturesTogether(config, log)


def pytest_xdist_auto_num_workers(config):
    return workers()
