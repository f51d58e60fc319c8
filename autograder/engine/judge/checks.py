"""Checks on what student code returned, with feedback a student can act on.

Shape and dtype are checked before values; a value mismatch reports how many elements differ, the
greatest difference and where it is. Each check raises StudentError (an AssertionError) on failure.
"""

from collections.abc import Sequence

import numpy as np

# Re-exported: what every check raises, which their callers catch as checks.StudentError.
from autograder.engine.contract.errors import StudentError as StudentError
from autograder.engine.contract.messages import FROZEN, OTHER, STATUS, TENSOR
from autograder.engine.judge.hints import HINT, HINTS
from autograder.engine.judge.tolerances import Tolerance, tolerance


def tensor(value: object, name: str, where: str) -> tuple[np.ndarray, str]:
    """The array behind a returned tensor, or a clear failure when it is not a tensor."""
    if isinstance(value, dict) and TENSOR in value:
        return value[TENSOR], value["dtype"]
    got = "None" if value is None else value.get(OTHER) if isinstance(value, dict) else type(value).__name__
    if isinstance(value, list):
        got = f"a sequence of {len(value)} values"
    raise StudentError(f"{where}: {name} should be a tensor, but is {got}.")


def outputs(result: object, names: Sequence[str], target: str, where: str) -> dict[str, object]:
    """Split a returned value into named outputs: one name for a tensor, several for a tuple."""
    if len(names) == 1:
        return {names[0]: result}
    if not isinstance(result, list) or len(result) != len(names):
        raise StudentError(f"{where}: {target} should return a tuple ({', '.join(names)}).")
    return dict(zip(names, result))


def close(
    value: object, expected: np.ndarray, name: str, where: str, dtype: str | None, hint: str = "", *, component: str
) -> np.ndarray:
    """A float tensor of the expected shape, in the run's dtype, within component's tolerance of expected."""
    return compare(*tensor(value, name, where), expected, name, where, dtype, hint, component=component)


def same(
    value: object,
    reference: object,
    name: str,
    where: str,
    dtype: str | None,
    hint: str = "",
    select: tuple[slice, ...] | np.ndarray = (),
    *,
    component: str,
) -> np.ndarray:
    """Two results of the student's own code agree at the selected elements (a property, not a value check)."""
    first, _ = tensor(reference, name, where)
    actual, actual_dtype = tensor(value, name, where)
    _shape(actual, first, name, where)  # before indexing: a second answer of another shape is the student's
    return compare(
        actual[select], actual_dtype, first[select].astype(np.float64), name, where, dtype, hint, component=component
    )


def compare(
    actual: np.ndarray,
    actual_dtype: str,
    expected: np.ndarray,
    name: str,
    where: str,
    dtype: str | None,
    hint: str = "",
    *,
    component: str,
) -> np.ndarray:
    """An array (with the dtype name the student's tensor had) within the tolerance of expected that component's
    outputs are held to in dtype."""
    _shape(actual, expected, name, where)
    if dtype is not None and actual_dtype != dtype:
        raise StudentError(
            f"{where}: {name} has dtype {actual_dtype}, expected {dtype} (the dtype of the inputs). "
            "Create new tensors with dtype= and device= taken from an input."
        )
    if actual.dtype.kind != "f":
        raise StudentError(f"{where}: {name} has dtype {actual_dtype}, expected a floating-point tensor.")
    allowed = tolerance(dtype, component)
    actual = actual.astype(np.float64)
    # An infinite expected value (a blocked score, -inf) is met by itself alone: inf - inf is NaN, and the slack
    # there is infinite.
    with np.errstate(invalid="ignore"):
        difference = np.where(actual == expected, 0.0, np.abs(actual - expected))
    bad = ~_within(difference, expected, allowed) | (np.isinf(expected) & (actual != expected))  # NaN is bad
    if bad.any():
        index = _worst(difference, bad)
        if dtype == "float64" and _within(difference, expected, tolerance("float32", component)).all():
            hint = HINTS["any"]["float32-only"]
        raise StudentError(
            f"{where}: {name}: {bad.sum()} of {bad.size} elements differ from the expected values "
            f"(allowed: {allowed}). {_where_worst(actual, expected, difference, index)}"
            + (f"\n{HINT}{hint}" if hint else "")
        )
    return actual


def _within(difference: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    return difference <= tolerance.slack(expected)


def equal(value: object, expected: np.ndarray, name: str, where: str, hint: str = "") -> np.ndarray:
    """A tensor equal to expected element for element, with expected's dtype kind (bool or integer)."""
    actual, actual_dtype = tensor(value, name, where)
    _shape(actual, expected, name, where)
    if actual.dtype.kind != expected.dtype.kind:
        want = "torch.bool" if expected.dtype.kind == "b" else "an integer dtype (torch.long)"
        raise StudentError(f"{where}: {name} has dtype {actual_dtype}, expected {want}.")
    bad = actual != expected
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise StudentError(
            f"{where}: {name}: {bad.sum()} of {bad.size} elements differ; the first at {list(index)}: "
            f"got {actual[index]}, expected {expected[index]}." + (f"\n{HINT}{hint}" if hint else "")
        )
    return actual


def _shape(actual: np.ndarray, expected: np.ndarray, name: str, where: str) -> None:
    if actual.shape != expected.shape:
        raise StudentError(f"{where}: {name} has shape {tuple(actual.shape)}, expected {tuple(expected.shape)}.")


def _worst(difference: np.ndarray, bad: np.ndarray) -> tuple[int, ...]:
    if np.isnan(difference).any():
        return tuple(int(i) for i in np.argwhere(np.isnan(difference))[0])
    masked = np.where(bad, difference, -1.0)
    return tuple(int(i) for i in np.unravel_index(np.argmax(masked), masked.shape))


def _where_worst(actual: np.ndarray, expected: np.ndarray, difference: np.ndarray, index: tuple[int, ...]) -> str:
    if np.isnan(actual[index]):
        return f"The first NaN is at {list(index)} (expected {expected[index]:.6g})."
    got, want = _distinct(actual[index], expected[index])
    return f"The greatest difference is {difference[index]:.3g} at {list(index)}: got {got}, expected {want}."


def _distinct(actual: float, expected: float) -> tuple[str, str]:
    """Both numbers with the fewest significant digits (at least 6) that tell them apart."""
    for digits in range(6, 18):
        got, want = f"{actual:.{digits}g}", f"{expected:.{digits}g}"
        if got != want:
            break
    return got, want


def no_gradients(names: Sequence[str], why: str, where: str, every: Sequence[str]) -> str:
    """The failure for gradients that never came: names are "NAME.grad" among every one expected, why "none"
    or "frozen" (absent()). A module whose every parameter lacks one is named once, as "module.*"."""
    what = ", ".join(_covering([n.removesuffix(".grad") for n in names], [n.removesuffix(".grad") for n in every]))
    one = len(names) == 1
    if why == "frozen":
        return (
            f"{where}: {what} {'does' if one else 'do'} not require grad (requires_grad=False), so training would "
            f"never change {'it' if one else 'them'}. Leave every parameter trainable: no requires_grad_(False), "
            "no .requires_grad = False."
        )
    return (
        f"{where}: no gradient reaches {what} (.grad is None after backward). Something between "
        f"{'it' if one else 'them'} and the outputs cuts the graph: .detach(), .data, torch.no_grad(), "
        "or a value rebuilt from .item(), .tolist() or numpy(); without a gradient nothing there can be trained."
    )


def _covering(names: Sequence[str], every: Sequence[str]) -> list[str]:
    """The fewest prefixes that name exactly these dotted names among every one: "key.*" for key.weight and
    key.bias when both are among names; a name itself where its module has others that are not."""
    chosen = []
    for name in names:
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            under = [n for n in every if n == prefix or n.startswith(prefix + ".")]
            if set(under) <= set(names):
                label = prefix if under == [prefix] else prefix + ".*"
                if label not in chosen:
                    chosen.append(label)
                break
    return chosen


def absent(value: object) -> str | None:
    """Why a gradient did not come ("frozen" or "none"), or None where it did."""
    if value is None:
        return "none"
    return "frozen" if _frozen(value) else None


def _frozen(value: object) -> bool:
    # Compared as text: the value came from the child, and an array under STATUS must not reach ==.
    return isinstance(value, dict) and isinstance(value.get(STATUS), str) and value == FROZEN


NO_GRAPH = (
    "{where}: {name} carries no gradient at all (its grad_fn is None): it was computed under torch.no_grad() or "
    "detached, so nothing before it could be trained."
)
