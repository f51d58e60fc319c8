"""Pytest wiring for the hidden suites: `pytest autograder/engine/judge/suites --submission PATH` grades a submission.

The grader (python -m autograder grade) runs these same suites in-process. Each module grades one
component in its own child process; a component whose child timed out, crashed or delegated its
subject to a library is recorded in config.grading so that the grader can score it 0.
"""
import pytest

from autograder.engine.judge import sandbox
from autograder.engine.judge.session import Grading


def pytest_addoption(parser):
    group = parser.getgroup("autograder")
    group.addoption("--submission", help="a notebook, a .py file or a folder of them")
    group.addoption("--device", default="cpu", help="where student code runs: cpu or cuda")
    group.addoption("--time-limit", type=float, default=sandbox.DEFAULT_TIME_LIMIT, help="seconds per component")
    group.addoption("--memory-limit", type=int, default=sandbox.DEFAULT_MEMORY_LIMIT, help="bytes per child")


def pytest_configure(config):
    path = config.getoption("--submission")
    if path and not hasattr(config, "grading"):
        limits = sandbox.Limits(config.getoption("--time-limit"), config.getoption("--memory-limit"))
        config.grading = Grading(path, config.getoption("--device"), limits)


def pytest_unconfigure(config):
    if config.getoption("--submission"):  # the grader closes what it started itself
        config.grading.close()


@pytest.fixture(scope="module")
def student(request):
    grading = getattr(request.config, "grading", None)
    if grading is None:
        pytest.exit("the hidden suites need a submission: pytest autograder/engine/judge/suites --submission PATH", returncode=4)
    child = grading.child(request.module.COMPONENT)
    yield child
    grading.release(child)
