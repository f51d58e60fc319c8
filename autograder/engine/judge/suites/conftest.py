"""Pytest wiring for the hidden suites: `pytest autograder/engine/judge/suites --submission PATH` grades a submission.

The grader (python -m autograder grade) runs these same suites in-process. Each module grades one
component in its own child process; a component whose child timed out, crashed or delegated its
subject to a library is recorded in config.grading so that the grader can score it 0.
"""

import pytest

from autograder.engine.judge import fixtures, limits


def pytest_addoption(parser):
    group = parser.getgroup("autograder")
    group.addoption("--submission", help="a notebook, a .py file or a folder of them")
    group.addoption("--device", default="cpu", help="where student code runs: cpu or cuda")
    group.addoption("--time-limit", type=float, default=limits.DEFAULT_TIME_LIMIT, help="seconds per component")
    group.addoption("--memory-limit", type=int, default=limits.DEFAULT_MEMORY_LIMIT, help="bytes per child")
    group.addoption("--cases", help="the folder of cases to run on (default: the hidden suites' own)")


def pytest_configure(config):
    config.case_set = fixtures.case_set(config.getoption("--cases"))
    path = config.getoption("--submission")
    if path and not hasattr(config, "grading"):
        # Imported here: the public checks run these suites without a sandbox (the student bundle has none).
        from autograder.engine.judge.session import Grading

        bounds = limits.Limits(config.getoption("--time-limit"), config.getoption("--memory-limit"))
        config.grading = Grading(path, config.getoption("--device"), bounds)


def pytest_unconfigure(config):
    if config.getoption("--submission"):  # the grader closes what it started itself
        config.grading.close()


@pytest.fixture(scope="module")
def student(request):
    grading = getattr(request.config, "grading", None)
    if grading is None:
        pytest.exit(
            "the hidden suites need a submission: pytest autograder/engine/judge/suites --submission PATH", returncode=4
        )
    child = grading.child(request.module.COMPONENT)
    yield child
    grading.release(child)


def pytest_generate_tests(metafunc):
    """Each test's cases, as common.cases selects them, from the run's case set (config.case_set), paired with
    each of a case's dtypes where the test takes a dtype."""
    selections = getattr(metafunc.function, "case_selections", None)
    if selections is None:
        return
    with_dtype = "dtype" in metafunc.fixturenames
    params = []
    for selection in selections:
        component = selection["component"] or metafunc.module.COMPONENT
        label = f"{component}-" if selection["component"] else ""
        for case in metafunc.config.case_set.of_kind(component, *selection["kinds"])[selection["pick"]]:
            if selection["trained"] and not case.upstream:
                continue
            if with_dtype:
                params += [
                    pytest.param(case, dtype, id=f"{label}{case.id}-{dtype}" if dtype else f"{label}{case.id}")
                    for dtype in case.dtypes
                ]
            else:
                params.append(pytest.param(case, id=f"{label}{case.id}"))
    metafunc.parametrize("case, dtype" if with_dtype else "case", params)
