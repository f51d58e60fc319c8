"""The three seams of a grading, as types: the student a suite grades, the session that hands the suites one
student per component, and what a check compares a run's outputs with. Each has two sides that meet only
here: the grader's (a child in the jail, session.Grading, a fixture case) and the public checks' (their
stand-in in the student's process, course/local.py) or the evidence builder's (engine/authoring/evidence.py).
mypy holds every side to them (docs/CHANGING.md). Also here: where a pytest run of the suites keeps its session
and its cases."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
import pytest

from autograder.engine.judge.diagnosis import Observation
from autograder.engine.judge.fixtures import CaseSet

# The suites' modules built in one student's process, by (case id, dtype): suites/running.built.
Built = dict[tuple[str, str | None], dict[str, object]]


class Student(Protocol):
    """A component's code as the suites grade it: requests answered by a child in the jail (judge/handle.ChildHandle)
    or by the public checks' stand-in (course/local.LocalStudent), both messages.Requests. A request that
    fails raises errors.StudentError (this test fails) or errors.Fatal (the component scores 0)."""

    built: Built
    observations: list[Observation]  # what the value checks returned, for diagnosis.Evidence.diagnose

    def new(self, target: str, *args: object, **kwargs: object) -> dict[str, object]: ...

    def load(self, obj: dict[str, object], params: Mapping[str, object]) -> None: ...

    def call(
        self,
        target: str | dict[str, object],
        *args: object,
        dtype: str | None = None,
        return_inputs: bool = False,
        **kwargs: object,
    ) -> object: ...

    def request(self, message: dict[str, object]) -> object:
        """Any request, as messages.Requests sends it: the training component's calls graded by their effect."""
        ...

    def train(
        self,
        target: str | dict[str, object],
        *args: object,
        dtype: str | None = None,
        upstream: Iterable[object] = (),
        **kwargs: object,
    ) -> object: ...


class Session(Protocol):
    """What the suites' conftest asks of a grading: each component's student, and its release once the
    component's tests are done (session.Grading, course/local.LocalGrading)."""

    def child(self, component_id: str) -> Student: ...

    def release(self, component_id: str) -> None: ...


class Expectation(Protocol):
    """What suites/checking.check_outputs compares a run's outputs with: a case (fixtures.Case), or a mistake's
    outputs on one, which the evidence builder asks the same checks about."""

    @property
    def outputs(self) -> Sequence[str]: ...

    @property
    def expected(self) -> Mapping[str, np.ndarray]: ...

    @property
    def component(self) -> str: ...

    @property
    def meta(self) -> Mapping[str, object]: ...

    def describe(self, dtype: str | None) -> str: ...


# Where a pytest run of the suites keeps its grading and the cases it runs on (run.Collector, suites/conftest.py).
GRADING = pytest.StashKey[Session]()
CASES = pytest.StashKey[CaseSet]()
