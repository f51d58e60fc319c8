"""What every kit test shares: the thread count, its kind by folder, how `make test` shares the tests out, and that
a parallel worker dies with the run.

A test is a unit test or a system test by where it lives (docs/CHANGING.md): tests/unit/ starts no process and
runs in this one (tests/unit/conftest.py refuses any process it starts), running nothing whole; tests/system/ grades
(in the jail or in process), trains, loads a real checkpoint, runs kernels, nbgrader or the kit's commands. Each is marked so (`pytest -m unit`), and a test elsewhere is refused.
"""

import os

# Before torch is imported, here and in every process a test starts: parallel workers share the cores,
# and torch's default of one thread per core in each has them spin against each other (a public check
# took 14 s instead of half a second).
os.environ["OMP_NUM_THREADS"] = "1"

import ctypes  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
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


def pytest_configure(config):
    """A parallel worker (pytest-xdist's) dies with the run that started it, however the run ends: a SIGTERM or
    SIGKILL runs none of its cleanup, and a worker left behind went on with its sandboxes and grade-all's pools (an
    interrupted `make test` left a worker, a bwrap and a zygote alive 38 minutes later). What a worker started dies
    with it: the sandboxes' jails (bwrap's --die-with-parent) and grade-all's pools (engine/judge/pool.py)."""
    if hasattr(config, "workerinput") and sys.platform.startswith("linux"):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def pytest_xdist_make_scheduler(config, log):
    return SharedFixturesTogether(config, log)


def pytest_xdist_auto_num_workers(config):
    return workers()
