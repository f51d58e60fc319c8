"""Hidden suite for `training` (a course extension): shift_right and sequence_loss against the reference, the
schedule step by step, clip_gradient_norm against torch's clip_grad_norm_ by the gradients it leaves, and
training_step by the weights after one step from stale gradients (child/effects.py)."""

from collections.abc import Callable
from typing import TypeGuard

import numpy as np

from autograder.engine.contract.errors import StudentError
from autograder.engine.contract.messages import CALL, INPUT, TENSOR
from autograder.engine.judge import checks
from autograder.engine.judge.diagnosis import Observation
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.running import build, checked, run
from autograder.engine.judge.suites.selection import cases
from autograder.engine.judge.suites.train_checks import check_training
from autograder.engine.judge.tolerances import tolerance

COMPONENT = "training"


@cases("shift")
def test_shift_right_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"decoder_input_ids": ""})


@cases("loss")
def test_sequence_loss_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    # A scalar, which check_case would take for a constant answer: compared on its own.
    loss = run(student, case, dtype)["loss"]
    _observed(
        student,
        case,
        dtype,
        {"loss": _array(loss)},
        lambda: checks.close(loss, case.expected["loss"], "the loss", case.describe(dtype), dtype, component=COMPONENT),
    )


@cases("loss", trained=True)
def test_sequence_loss_gradient_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_training(student, case, dtype, {"loss": ""})


@cases("schedule")
def test_learning_rate_follows_warm_up_then_linear_decay(student: Student, case: Case, dtype: str | None) -> None:
    meta = case.meta
    rates, places = [], []
    for step in meta["steps"]:
        where = f"{case.describe(dtype)}: learning_rate({step}, {meta['peak']}, {meta['warmup_steps']}, "
        where += f"{meta['total_steps']})"
        rate = student.call(case.target, step, meta["peak"], meta["warmup_steps"], meta["total_steps"])
        rates.append(checked(rate, where, ["result"])["result"])
        places.append(where)

    def check() -> None:
        for rate, expected, where in zip(rates, case.expected["rates"], places, strict=True):
            _close_number(rate, float(expected), where, dtype)

    numbers = all(_number(rate) for rate in rates)
    _observed(student, case, dtype, {"rates": np.array(rates, dtype=np.float64)} if numbers else None, check)


@cases("clip")
def test_clip_gradient_norm_equals_torchs_clip_grad_norm(student: Student, case: Case, dtype: str | None) -> None:
    values = [{INPUT: name} for name in case.meta["values"]]
    grads = [None if name is None else {INPUT: name} for name in case.meta["grads"]]
    args, kwargs = _filled(case, dtype, [values, grads, case.kwargs["max_norm"]])
    where = case.describe(dtype)
    reply = checked(
        student.request(
            {"op": CALL, "effect": "clip", "target": case.target, "args": args, "kwargs": {}, "dtype": dtype}
        ),
        where,
        ["result", "grads"],
    )
    after = reply["grads"]
    if not isinstance(after, list) or len(after) != len(grads):
        raise StudentError(f"{where}: the process running your code answered with something that is not a result")

    def check() -> None:
        checks.close(reply["result"], case.expected["norm"], "the returned norm", where, dtype, component=COMPONENT)
        for name, grad in zip(case.meta["grads"], after, strict=True):
            if name is not None:
                checks.close(grad, case.expected[name], f"{name} after clipping", where, dtype, component=COMPONENT)
            elif grad is not None:
                raise AssertionError(f"{where}: a parameter without a gradient was given one")

    named = zip(case.meta["grads"], after, strict=True)
    arrays = {"norm": _array(reply["result"])} | {name: _array(grad) for name, grad in named if name is not None}
    _observed(student, case, dtype, arrays, check)


@cases("step")
def test_training_step_moves_the_weights_as_the_reference(student: Student, case: Case, dtype: str | None) -> None:
    where = case.describe(dtype)
    model = build(student, case.meta["model"]["target"], case.meta["model"]["init"], case.params)
    batch, _ = case.call_args(dtype)
    message: dict[str, object] = {
        "op": CALL,
        "effect": "step",
        "target": case.target,
        "args": [model, batch, case.meta["learning_rate"]],
        "kwargs": case.kwargs,
        "dtype": dtype,
    }
    reply = checked(student.request(message), where, ["result", "params", "training"], dicts=["params"])
    params = reply["params"]
    assert isinstance(params, dict)

    def check() -> None:
        if reply["training"] is not True:
            raise AssertionError(f"{where}: the model is not in train mode after the step: call model.train() first")
        _close_number(reply["result"], float(case.expected["loss"]), f"{where}: the loss it returns", dtype)
        for name in case.outputs[1:]:
            if name not in params:
                raise StudentError(f"{where}: the model has no parameter {name}")
            checks.close(params[name], case.expected[name], f"{name} after the step", where, dtype, component=COMPONENT)

    found: dict[str, np.ndarray | None] = {name: _array(value) for name, value in params.items()}
    loss: dict[str, np.ndarray | None] = (
        {"loss": np.array(reply["result"], dtype=dtype or np.float64)} if _number(reply["result"]) else {}
    )
    _observed(student, case, dtype, loss | found, check)


def _filled(case: Case, dtype: str | None, args: list[object]) -> tuple[list[object], dict[str, object]]:
    """args with the case's inputs put in for {INPUT: name}, at any depth, float inputs in the run's dtype."""

    def fill(value: object) -> object:
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict) and INPUT in value:
            array = case.inputs[str(value[INPUT])]
            return array.astype(dtype) if dtype and array.dtype.kind == "f" else array
        return value

    return [fill(a) for a in args], {}


def _observed(
    student: Student,
    case: Case,
    dtype: str | None,
    arrays: dict[str, np.ndarray | None] | None,
    check: Callable[[], object],
) -> None:
    """check(), the case's outputs (these arrays, those that are arrays) kept as an observation for the diagnosis
    whether it passes or not (diagnosis.py; authoring/effect_runs.py computes a mistake's alike)."""
    kept = None if arrays is None else {name: array for name, array in arrays.items() if array is not None}
    try:
        check()
    except AssertionError:
        student.observations.append(Observation(case.id, dtype, False, kept, case.expected))
        raise
    student.observations.append(Observation(case.id, dtype, True, kept, case.expected))


def _array(value: object) -> np.ndarray | None:
    """The array of a tensor the child sent back, or None for anything else."""
    return value[TENSOR] if isinstance(value, dict) and isinstance(value.get(TENSOR), np.ndarray) else None


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _close_number(value: object, expected: float, where: str, dtype: str | None) -> None:
    """A plain number within the component's tolerance of expected."""
    if not _number(value):
        raise AssertionError(f"{where}: returned {type(value).__name__}, not a number (a float)")
    allowed = tolerance(dtype, COMPONENT).slack(np.float64(expected))
    if not abs(value - expected) <= allowed:
        raise AssertionError(f"{where}: returned {value!r}, expected {expected!r} (within {allowed:.2g})")
