"""Hidden suite for `masking`: causal_mask and padding_mask, compared exactly."""

from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.contract.messages import DEVICE
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_case
from autograder.engine.judge.suites.running import checked
from autograder.engine.judge.suites.selection import cases

COMPONENT = "masking"
HINT = HINTS[COMPONENT]
# A device beside the default one that a CPU-only torch has: its lazy tensors (the child starts them when asked).
LAZY = "lazy"


@cases("causal")
def test_causal_mask_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"mask": HINT["causal"]})
    if "device" in case.kwargs:  # the contract's causal_mask(size, device=None)
        _made_on_the_device_asked_for(student, case)


def _made_on_the_device_asked_for(student: Student, case: Case) -> None:
    """A mask made on the default device instead of the one asked for has every value right where the case's device
    is the default one, the CPU: asked for again on torch's lazy-tensor device, such a mask comes back on the CPU.
    Code that cannot run there is judged by its values alone: its failing says nothing of where it makes the mask."""
    where = f"{case.target}({', '.join(map(repr, case.args))}, device=torch.device('{LAZY}'))"
    try:
        reply = student.call(case.target, *case.args, device={DEVICE: LAZY})
    except Fatal:
        raise
    except StudentError:
        return
    mask = checked(reply, where, ["result"])["result"]
    made_on = mask.get("device") if isinstance(mask, dict) else None
    if made_on != LAZY:
        raise StudentError(
            f"{where}: the mask is on {made_on or 'no device'}, not on the device it was asked for: make it on the "
            "device given (device=device)."
        )


@cases("padding")
def test_padding_mask_matches_reference(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"mask": HINT["padding"]})
