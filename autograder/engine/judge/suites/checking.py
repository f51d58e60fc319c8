"""A case's outputs checked against its expected values, each check kept as an observation for the diagnosis."""

from collections.abc import Callable, Mapping

import numpy as np

from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.contract.messages import TENSOR
from autograder.engine.judge import checks
from autograder.engine.judge.diagnosis import Observation, trained
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Expectation, Student
from autograder.engine.judge.suites.running import Outputs, run

Hints = Mapping[str, str]  # a hint by output name, for an output that differs


def check_case(student: Student, case: Case, dtype: str | None, hints: Hints) -> Outputs:
    """The case's outputs against its expected values: exact for masks and tokens, within tolerance otherwise.

    A case whose every expected output is one value repeated (causal_mask(1), a batch without padding)
    is answered by a constant too: it counts only where a case of its kind that no constant answers
    passes as well.
    """
    if all(_constant(case.expected[name]) for name in case.outputs):
        assert case.source is not None, "a case whose every output is a constant comes from a case set"
        companion = next(
            c for c in case.source.of_kind(case.component, case.kind) if not all(map(_constant, c.expected.values()))
        )
        run_right(
            student,
            companion,
            dtype,
            hints=hints,
            why=f"{case.describe(dtype)} counts only with the other cases of its kind",
        )
    return check_call(student, case, dtype, hints, lambda: run(student, case, dtype), again=True)


def check_call(
    student: Student, case: Case, dtype: str | None, hints: Hints, call: Callable[[], Outputs], again: bool = False
) -> Outputs:
    """call()'s outputs (the case run on the student's code, as its test runs it) against the case's expected values,
    kept for the diagnosis whether they pass, fail or never come. again: where they are wrong, a second call that
    gives other values says so (a plain call's; a call with state is not the same call twice)."""
    try:
        outputs = call()
    except Fatal:
        raise
    except StudentError as error:
        observe(student, case, dtype, passed=False, failure=str(error))
        raise
    try:
        check_outputs(outputs, case, dtype, hints)
    except StudentError:
        observe(student, case, dtype, passed=False, outputs=outputs)
        if again and _changes_between_calls(student, case, dtype, outputs):
            check_outputs(outputs, case, dtype, dict.fromkeys(case.outputs, HINTS["any"]["changing"]))
        raise
    observe(student, case, dtype, passed=True, outputs=outputs)
    return outputs


def _changes_between_calls(student: Student, case: Case, dtype: str | None, outputs: Outputs) -> bool:
    """Whether a second call on the same input gives other values (asked only of values that are wrong)."""
    try:
        again = run(student, case, dtype)
        return any(
            not np.array_equal(checks.tensor(outputs[n], n, "")[0], checks.tensor(again[n], n, "")[0], equal_nan=True)
            for n in case.outputs
        )
    except Fatal:
        raise
    except StudentError:
        return False


def observe(
    student: Student,
    case: Case,
    dtype: str | None,
    passed: bool,
    outputs: Outputs | None = None,
    failure: str | None = None,
    train: bool = False,
    absent: dict[str, str] | None = None,
) -> None:
    """Keep what the case returned, for naming a cataloged mistake once the component is graded (diagnosis.py).

    A train-mode run is its own observation, under the key diagnosis.trained(case.id)."""
    arrays = None
    if outputs is not None:
        arrays = {name: value[TENSOR] for name, value in outputs.items() if isinstance(value, dict) and TENSOR in value}
    key, expected = (trained(case.id), case.trained) if train else (case.id, case.expected)
    student.observations.append(Observation(key, dtype, passed, arrays, expected, failure, absent or {}))


def _constant(array: np.ndarray) -> bool:
    return array.size > 0 and bool((array == array.flat[0]).all())


def component_of(case: Expectation) -> str:
    """The component whose tolerance a case's outputs are held to: a step's is the component it is a step of."""
    return str(case.meta.get("component", case.component))


def check_outputs(outputs: Outputs, case: Expectation, dtype: str | None, hints: Hints) -> None:
    where = case.describe(dtype)
    failures = []
    # Every output is checked, weights first, so that the message starts where the mistake does
    # (weights that are wrong make the output wrong too, not the other way round).
    for name in sorted(case.outputs, key=lambda name: name != "weights"):
        expected = case.expected[name]
        try:
            if expected.dtype.kind in "biu":
                checks.equal(outputs[name], expected, name, where, hints.get(name, ""))
            else:
                checks.close(
                    outputs[name], expected, name, where, dtype, hints.get(name, ""), component=component_of(case)
                )
        except StudentError as error:
            failures.append(str(error))
    if failures:
        raise StudentError("\n".join(failures))


def right(student: Student, case: Case, dtype: str | None) -> bool:
    """Whether the case's eval-mode outputs are right: the evidence a hint about another run needs. Not graded,
    and not kept as an observation."""
    try:
        check_outputs(run(student, case, dtype), case, dtype, {})
    except StudentError:
        return False
    return True


# Why run_right's values must be right, by default: a property (determinism, inputs left alone, causality,
# padding invariance) earns its points only there, since a constant, a copy of the input or a replay of
# the last result has every property.
PROPERTY = "this property is scored only where the values are right, and on this case they are not"


def run_right(
    student: Student, case: Case, dtype: str | None = "float32", hints: Hints | None = None, why: str = PROPERTY
) -> Outputs:
    """run() on the case's own inputs, whose outputs must have the expected values, or fail saying why."""
    outputs = run(student, case, dtype)
    right_or_fail(outputs, case, dtype, hints, why)
    return outputs


def right_or_fail(outputs: Outputs, case: Case, dtype: str | None, hints: Hints | None, why: str) -> None:
    try:
        check_outputs(outputs, case, dtype, hints or {})
    except StudentError as error:
        raise StudentError(f"{why}: {error}") from None
