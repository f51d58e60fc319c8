"""The system tests' shared sandbox."""

import pytest
from support.helpers import TIME_LIMIT

from autograder.engine.judge.limits import Limits
from autograder.engine.judge.sandbox import Sandbox


@pytest.fixture(scope="session")
def sandbox():
    """One zygote for the gradings of a run (of each parallel worker), as grade-all shares one across a class:
    torch is imported once. Module scope started one per module and worker (a second of CPU each, 27 in all).
    A test that needs other limits starts a sandbox of its own."""
    shared = Sandbox(limits=Limits(time=TIME_LIMIT))
    yield shared
    shared.close()
