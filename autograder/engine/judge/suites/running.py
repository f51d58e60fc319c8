"""Running a fixture case on the student's code: the one place the suites talk to the child."""

from collections.abc import Mapping, Sequence

import numpy as np

from autograder.engine.contract.errors import StudentError
from autograder.engine.judge import checks
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.seams import Student

Outputs = dict[str, object]  # a run's returned values, by output name (checks.outputs)


def run(student: Student, case: Case, dtype: str | None, inputs: Mapping[str, np.ndarray] | None = None) -> Outputs:
    """Build the case's target (with its weights) if it is a class, call it, and name the outputs: {output name:
    returned value}."""
    return _run(student, case, dtype, inputs, return_inputs=False)[0]


def run_returning_inputs(student: Student, case: Case, dtype: str | None) -> tuple[Outputs, object]:
    """run(), and the inputs as they were after the call."""
    return _run(student, case, dtype, None, return_inputs=True)


def _run(
    student: Student, case: Case, dtype: str | None, inputs: Mapping[str, np.ndarray] | None, return_inputs: bool
) -> tuple[Outputs, object]:
    args, kwargs = case.call_args(dtype, inputs)
    target: str | dict[str, object] = case.target
    if case.init is not None:
        target = built(student, case, dtype)
    if case.kind == "generate":
        args[0] = built(student, case, dtype)
    value = checked(
        student.call(target, *args, dtype=dtype, return_inputs=return_inputs, **kwargs),
        case.describe(dtype),
        ["result", *(["inputs"] if return_inputs else [])],
    )
    named = checks.outputs(value["result"], case.outputs, case.target, case.describe(dtype))
    return named, value.get("inputs")


def checked(value: object, where: str, keys: list[str], dicts: tuple[str, ...] | list[str] = ()) -> dict[str, object]:
    """The child's answer, if it is a dict with these keys (those in dicts holding dicts): the child runs the
    student's code, which can write anything to its socket, and what is not an answer is the submission's
    doing, never the grader's failure."""
    if (
        not isinstance(value, dict)
        or any(key not in value for key in keys)
        or any(not isinstance(value.get(key), dict) for key in dicts)
    ):
        raise StudentError(f"{where}: the process running your code answered with something that is not a result")
    return value


def built(student: Student, case: Case, dtype: str | None) -> dict[str, object]:
    """The case's module (greedy_decode's model for a generate case), with its weights: built once per dtype,
    so that the eval-mode and the train-mode runs of a dtype share it. A module built for one dtype is never
    run in the other, so that what its constructor made in float64 is never rounded through float32."""
    key = (case.id, dtype)
    if key not in student.built:
        target, init = (
            (case.meta["model"]["target"], case.meta["model"]["init"])
            if case.kind == "generate"
            else (case.target, case.init)
        )
        assert init is not None, f"{case.id} calls a function: there is nothing to build"
        student.built[key] = build(student, target, init, case.params)
    return student.built[key]


def build(student: Student, target: str, init: Sequence[object], params: Mapping[str, np.ndarray]) -> dict[str, object]:
    obj = student.new(target, *init)
    if params:
        student.load(obj, params)
    return obj
