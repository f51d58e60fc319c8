"""Pytest wiring for the hidden suites: `pytest autograder/engine/judge/suites --submission PATH` grades a submission.

The grader (python -m autograder grade) runs these same suites in-process. Each module grades one
component in its own child process; a component whose child timed out, crashed or delegated its
subject to a library is recorded in the run's grading (seams.GRADING) so that the grader can score it 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from autograder.engine.judge import fixtures, limits
from autograder.engine.judge.seams import CASES, GRADING, Student
from autograder.engine.judge.suites.selection import selections

if TYPE_CHECKING:
    from autograder.engine.judge.session import Grading

STARTED: pytest.StashKey[Grading] = (
    pytest.StashKey()
)  # the grading this conftest started for --submission, which it closes


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autograder")
    group.addoption("--submission", help="a notebook, a .py file or a folder of them")
    group.addoption("--device", default="cpu", help="where student code runs: cpu or cuda")
    group.addoption("--time-limit", type=float, default=limits.DEFAULT_TIME_LIMIT, help="seconds per component")
    group.addoption("--memory-limit", type=int, default=limits.DEFAULT_MEMORY_LIMIT, help="bytes per child")
    group.addoption("--cases", help="the folder of cases to run on (default: the hidden suites' own)")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[CASES] = fixtures.case_set(config.getoption("--cases"))
    path = config.getoption("--submission")
    if path and GRADING not in config.stash:
        # Imported here: the public checks run these suites without a sandbox (the student bundle has none).
        from autograder.engine.judge.session import Grading

        bounds = limits.Limits(config.getoption("--time-limit"), config.getoption("--memory-limit"))
        grading = Grading(path, config.getoption("--device"), bounds)
        config.stash[GRADING] = grading
        config.stash[STARTED] = grading


def pytest_unconfigure(config: pytest.Config) -> None:
    if STARTED in config.stash:  # the grader closes what it started itself
        config.stash[STARTED].close()


@pytest.fixture(scope="module")
def student(request: pytest.FixtureRequest) -> Iterator[Student]:
    grading = request.config.stash.get(GRADING, None)
    if grading is None:
        pytest.exit(
            "the hidden suites need a submission: pytest autograder/engine/judge/suites --submission PATH", returncode=4
        )
    component: str = request.module.COMPONENT
    yield grading.child(component)
    grading.release(component)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test's cases, as selection.cases selects them, from the run's case set (seams.CASES), paired with
    each of a case's dtypes where the test takes a dtype."""
    chosen = selections(metafunc.function)
    if not chosen:
        return
    with_dtype = "dtype" in metafunc.fixturenames
    params = []
    for selection in chosen:
        component = selection.component or metafunc.module.COMPONENT
        label = f"{component}-" if selection.component else ""
        for case in metafunc.config.stash[CASES].of_kind(component, *selection.kinds)[selection.pick]:
            if selection.trained and not case.upstream:
                continue
            if with_dtype:
                params += [
                    pytest.param(case, dtype, id=f"{label}{case.id}-{dtype}" if dtype else f"{label}{case.id}")
                    for dtype in case.dtypes
                ]
            else:
                params.append(pytest.param(case, id=f"{label}{case.id}"))
    metafunc.parametrize("case, dtype" if with_dtype else "case", params)
