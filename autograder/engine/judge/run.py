"""Running the suites: one pytest run over some components' tests, on a grading's students, in this process.

The grader runs them on the hidden cases, each component's student a child in the jail (session.Grading); the
public checks run the same suites on the public cases, the student an object of the student's own process
(course/local.py). Only the cases and where the code runs differ: every comparison, hint and message is the suites'.
"""

import contextlib
import io
import os
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from autograder.engine.contract.errors import KitFault
from autograder.engine.judge.seams import GRADING, Session

SUITES = Path(__file__).resolve().parent / "suites"
# pytest's plugins that a grading does without: the suites use no temporary folder, monkeypatch, recorded
# warning, log capture, unittest class, doctest or debugger, and nothing reads a cache or a report file. (The
# warnings plugin stays: it keeps numpy's warnings from the comparisons off the grader's output.)
UNUSED_PLUGINS = (
    "cacheprovider",
    "unraisableexception",
    "threadexception",
    "debugging",
    "unittest",
    "legacypath",
    "tmpdir",
    "monkeypatch",
    "recwarn",
    "pastebin",
    "junitxml",
    "doctest",
    "setuponly",
    "setupplan",
    "stepwise",
    "logging",
    "faulthandler",
    "subtests",
)


@dataclass
class TestResult:
    __test__ = False  # a result, not a test class for pytest to collect where a test module imports it
    name: str
    passed: bool
    message: str = ""


class Collector:
    """Pytest plugin that records each test's outcome and the message a student should read."""

    def __init__(self, grading: Session, chosen: Callable[[], Collection[str]] | None = None) -> None:
        self.results: defaultdict[str, list[TestResult]] = defaultdict(list)
        self.grading = grading
        self.chosen = chosen
        self.kit_fault: KitFault | None = None  # the first KitFault a test raised: no student is scored for it

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[GRADING] = self.grading

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Only the tests of the components chosen, asked once every suite given is collected."""
        if self.chosen is None:
            return
        try:
            chosen = set(self.chosen())
        except KitFault as fault:  # a zygote that does not start: said in one line, as a test's would be
            self.kit_fault = fault
            items.clear()
            return
        left_out = [item for item in items if cast("pytest.Function", item).module.COMPONENT not in chosen]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if cast("pytest.Function", item).module.COMPONENT in chosen]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
        """The test's report, whose failure text is the message a student reads: pytest's own would format a
        traceback that nobody reads, a tenth of a graded mutant's time in this process. A skip is pytest's."""
        assert isinstance(item, pytest.Function) and call.when != "collect"  # a test of a suite, run
        error = call.excinfo.value if call.excinfo is not None else None
        if isinstance(error, (pytest.skip.Exception, BaseExceptionGroup)):
            return None
        message = ""
        if error is not None:
            if isinstance(error, KitFault) and self.kit_fault is None:
                self.kit_fault = error
            message = (
                str(error)
                if isinstance(error, AssertionError)
                else f"the grader failed here ({type(error).__name__}: {error}); please report it"
            )
        if call.when == "call" or (call.when == "setup" and error is not None):
            self.results[item.module.COMPONENT].append(TestResult(item.name, error is None, message))
        return pytest.TestReport(
            item.nodeid,
            item.location,
            dict.fromkeys(item.keywords, 1),
            "passed" if error is None else "failed",
            None if error is None else message or type(error).__name__,
            call.when,
            duration=call.duration,
            start=call.start,
            stop=call.stop,
            user_properties=item.user_properties,
        )


def run_suites(
    component_ids: Iterable[str],
    grading: Session,
    cases: str | Path | None = None,
    chosen: Callable[[], Collection[str]] | None = None,
) -> defaultdict[str, list[TestResult]]:
    """{component id: [TestResult, ...]} of these components' suites, run on grading's students (grading.child
    and grading.release), on the cases in the folder cases (default: the hidden suites' own). chosen, if given, is
    asked once they are collected which of them to run."""
    collector = Collector(grading, chosen)
    args = [str(SUITES / f"test_{i}.py") for i in component_ids]
    # A test's report is the Collector's; a suite that cannot be collected is reported with a native traceback
    # (pytest's own prints every frame's arguments, the fixtures' arrays among them).
    # Student code never runs in the grader's process, so pytest's watch for unraisable and thread exceptions
    # has nothing of theirs to catch, and its closing garbage collections are a large part of a short grading.
    # No plugin of the environment's joins in either: one that reorders or reseeds tests (pytest-randomly),
    # or xdist, has no place in a grading. Nor do the rest of UNUSED_PLUGINS: each run registers every plugin
    # afresh, a cost every grading would pay for plugins none of them uses.
    args += ["--disable-plugin-autoload"]
    for plugin in UNUSED_PLUGINS:
        args += ["-p", f"no:{plugin}"]
    args += [
        "-q",
        "--tb=native",
        "--rootdir",
        str(SUITES),
        "-c",
        str(SUITES / "pytest.ini"),
    ]
    args += ["--cases", str(cases)] if cases is not None else []
    with redirect_stdout(io.StringIO()) as output, _without_pytest_settings():
        code = pytest.main(args, plugins=[collector])
    if collector.kit_fault is not None:
        raise collector.kit_fault
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise KitFault(f"the suites did not run (pytest exit code {int(code)}):\n{output.getvalue()}")
    return collector.results


ENVIRONMENT_SETTINGS = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


@contextlib.contextmanager
def _without_pytest_settings() -> Iterator[None]:
    """Without the environment's options and plugins for pytest: the public checks run in the student's own
    process, where a PYTEST_ADDOPTS naming a plugin of theirs stopped every check ("the suites did not run")."""
    saved = {name: os.environ.pop(name) for name in ENVIRONMENT_SETTINGS if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)
