"""Fixtures shared by the kit's tests."""
import pytest

from autograder.sandbox import Limits, Sandbox
from helpers import TIME_LIMIT


@pytest.fixture(scope="module")
def sandbox():
    """One zygote for a test module's gradings, as grade-all shares one across a class: torch is imported once."""
    shared = Sandbox(limits=Limits(time=TIME_LIMIT))
    yield shared
    shared.close()
