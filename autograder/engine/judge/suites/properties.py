"""The properties a component's outputs must have beyond their values (inputs left alone, determinism, an output
unchanged by inputs it must not read), each scored only where the values are right (checking.PROPERTY)."""

from collections.abc import Mapping

import numpy as np

from autograder.engine.contract.errors import StudentError
from autograder.engine.contract.messages import CONFIG
from autograder.engine.judge import checks
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import PROPERTY, component_of, right_or_fail, run_right
from autograder.engine.judge.suites.running import run, run_returning_inputs


def check_inputs_unchanged(student: Student, case: Case, dtype: str = "float32") -> None:
    outputs, after = run_returning_inputs(student, case, dtype)
    right_or_fail(outputs, case, dtype, None, PROPERTY)
    sent, _ = case.call_args(dtype)
    for position, (before, value) in enumerate(zip(sent, after if isinstance(after, list) else [])):
        if isinstance(before, np.ndarray):
            array, _ = checks.tensor(value, f"argument {position + 1}", case.describe(dtype))
            if not np.array_equal(array, before):
                raise StudentError(
                    f"{case.describe(dtype)}: argument {position + 1} of {case.target} was changed in place. "
                    "Use out-of-place operations (x = x + y, masked_fill, not +=, masked_fill_) on your inputs."
                )


def check_deterministic(student: Student, case: Case, dtype: str = "float32") -> None:
    first = run_right(student, case, dtype)
    second = run(student, case, dtype)
    for name in case.outputs:
        checks.same(
            second[name],
            first[name],
            name,
            f"{case.describe(dtype)}, called twice in eval mode",
            dtype,
            HINTS["any"]["deterministic"],
            component=component_of(case),
        )


def check_unchanged(
    student: Student,
    case: Case,
    inputs: Mapping[str, np.ndarray],
    name: str,
    select: tuple[slice, ...] | np.ndarray,
    what: str,
    hint: str,
) -> None:
    """The output `name` at `select` is the same for the case's own inputs and for `inputs`.

    what says how the inputs were changed and where the output is compared, for the message.
    """
    first = run_right(student, case)[name]
    second = run(student, case, "float32", inputs=inputs)[name]
    where = f"{case.describe('float32')}, {what}"
    checks.same(second, first, name, where, "float32", hint, select, component=component_of(case))


def changed_tokens(case: Case, name: str, where: tuple[slice, ...] | np.ndarray) -> np.ndarray:
    """The case's token ids `name` with those at `where` replaced by other valid ids.

    The vocabulary is the last config's: the decoder's, where a model has two.
    """
    assert case.init is not None, f"{case.id} has no config to read the vocabulary from"
    changed = case.inputs[name].copy()
    changed[where] = (changed[where] + 7) % case.init[-1][CONFIG]["vocab_size"]
    return changed
