"""Pytest wiring for the hidden suites: `pytest autograder/suites --submission PATH` grades a submission.

The grader (python -m autograder grade) runs these same suites in-process. Each module grades one
component in its own child process; a component whose child timed out, crashed or delegated its
subject to a library is recorded in config.grading so that the grader can score it 0.
"""
import pytest

from autograder import loader, sandbox


class Grading:
    """What one pytest run grades, and what happened to each component's child."""

    def __init__(self, path, device, limits):
        self.device = device
        self.limits = limits
        self.error = None
        try:
            self.submission = loader.load(path)
        except (loader.SubmissionError, OSError) as error:
            self.submission = None
            self.error = str(error)
        self.sandbox = sandbox.Sandbox(device, limits) if self.submission else None
        self.children = {}

    def child(self, component_id):
        if self.error:
            raise sandbox.Fatal(f"the submission could not be read: {self.error}")
        if component_id not in self.children:
            self.children[component_id] = self.sandbox.start(component_id, self.submission)
        return self.children[component_id]

    def close(self):
        for child in self.children.values():
            child.close()
        if self.sandbox:
            self.sandbox.close()


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
    grading = getattr(config, "grading", None)
    if grading:
        grading.close()


@pytest.fixture(scope="module")
def student(request):
    grading = getattr(request.config, "grading", None)
    if grading is None:
        pytest.exit("the hidden suites need a submission: pytest autograder/suites --submission PATH", returncode=4)
    child = grading.child(request.module.COMPONENT)
    yield child
    child.close()
