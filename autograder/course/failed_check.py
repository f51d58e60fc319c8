"""What a failed public check tells, in the order a student acts on it: what to change first (the likely mistake, an
earlier part that fails, a wrong call between two of the student's own parts, a shape error on its case, or the
hint of the first failure), then the first failing case named with its inputs, then the rest as counts.

The exception the check raises then says one line in a notebook (errors.StudentFault's IPython hook), and in a
script the student runs (quiet_faults, Python's own hook): the block is printed once, and no frame of the kit's
files reads as if the grader had crashed.
"""

import functools
import linecache
import re
import site
import sys
import sysconfig
import traceback
from pathlib import Path

import torch

from autograder.engine.contract.errors import StudentFault
from autograder.engine.contract.protocol import REFERENCE_LABEL
from autograder.engine.judge.hints import HINT, HINTS

# Where no student code lives: the kit's package, Python's own library and the installed packages (torch's).
NOT_STUDENTS = tuple(
    {str(Path(__file__).resolve().parents[1]), sys.prefix, sys.base_prefix, site.getusersitepackages()}
    | {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
# Words of torch's messages where shapes do not fit: "The size of tensor a (4) must match ...", "mat1 and mat2
# shapes cannot be multiplied", "shape '[2, 5]' is invalid for input of size 9", "Dimension out of range".
SHAPE_ERROR = re.compile(r"\b(sizes?|shapes?|dimension)\b", re.IGNORECASE)


def block(lead, first_check, first, failed, total, others):
    """The lines a failed check prints: the lead, the first failing check with its first case, how many more of
    its cases fail, then a line per other check (others: (name, failed, total) in the suite's order)."""
    lines = [lead] if lead else []
    lines.append(f"✗ {first_check}: " + first.replace("\n", "\n    "))
    if failed > 1:
        lines.append(f"    and {failed - 1} more of its {total} cases")
    for name, fails, cases in others:
        lines.append(f"✗ {name}: {fails} of {cases} cases fail" if fails else f"✓ {name}")
    return "\n".join(lines)


def hint_first(message):
    """(the first hint of a failure, the failure without it): the hint is what to change, said first, and once
    (a step's one hint is under each of its outputs)."""
    lines = message.split("\n")
    hint = next((line for line in lines if line.startswith(HINT)), None)
    return hint, "\n".join(line for line in lines if line != hint)


def crash_lead(error, own, case, expected, kind=None):
    """What to change first when the student's code raised on a case: the wrong call between two of their parts
    that led to it, or, for a shape error, the case with the shape its output must have (after the hint to read
    every size from the config, on the case of another config); None otherwise.

    own: the code objects of the part checked; case: the case described with its inputs; expected: {output name:
    array} of the case; kind: the case's kind."""
    if error is None:
        return None
    call = wrong_call(error, own)
    if call:
        return call
    if not SHAPE_ERROR.search(str(error)):
        return None
    frames = [
        (frame, line) for frame, line in traceback.walk_tb(error.__traceback__) if students(frame.f_code.co_filename)
    ]
    where = "".join(f" through {_line(*frames[-1])}" for _ in frames[-1:])
    if not expected:
        return f"Shapes do not fit: follow each tensor's shape{where}."
    outputs = [f"{name} {tuple(array.shape)}" for name, array in expected.items()]
    shapes = " and ".join(outputs) if len(outputs) > 1 else str(tuple(next(iter(expected.values())).shape))
    config = f"{HINT}{HINTS['any']['config']}\n" if kind == "config" else ""
    return config + (
        f"Shapes do not fit on {case}, whose output{'s are' if len(outputs) > 1 else ' is'} {shapes}: "
        f"follow each tensor's shape{where} for these sizes."
    )


def wrong_call(error, own):
    """Where the error was raised inside another of the student's parts than the one checked, called by it: what
    the caller passed, named by the callee's parameters. A bool tensor where no mask goes, or a float one where a
    mask goes, is named as the likely swap; otherwise every argument is shown. None where the error is the
    checked part's own."""
    frames = [
        (frame, line) for frame, line in traceback.walk_tb(error.__traceback__) if students(frame.f_code.co_filename)
    ]
    ours = [frame.f_code in own for frame, _ in frames]
    crossed = next((i for i in range(1, len(frames)) if ours[i - 1] and not any(ours[i:])), None)
    if crossed is None:
        return None
    (caller, line), (callee, _) = frames[crossed - 1], frames[crossed]
    caller_name, callee_name = _part(caller.f_code), _part(callee.f_code)
    code = callee.f_code
    params = [p for p in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount] if p != "self"]
    values = {p: callee.f_locals.get(p) for p in params}
    for param, value in values.items():
        if not isinstance(value, torch.Tensor):
            continue
        if not (value.dtype == torch.bool) ^ ("mask" in param) or value.dtype not in (torch.bool, *FLOATS):
            continue  # an integer 0/1 attention_mask is a mask too
        held = next((n for n, v in caller.f_locals.items() if v is value and n != param), None)
        its = f", its {held}," if held else ""
        why = "is it your mask?" if value.dtype == torch.bool else "a mask is bool: is another argument in its place?"
        return (
            f"Your {caller_name} passed a {_kind(value)}{its} as {param} of your {callee_name}, where it fails: {why}"
        )
    passed = ", ".join(
        f"{p}: {_kind(v) if isinstance(v, torch.Tensor) else type(v).__name__}" for p, v in values.items()
    )
    return (
        f"The error is raised inside your {callee_name}, called by your {caller_name} at {_line(caller, line)}, with "
        f"{passed}: does each argument go where it is passed?"
    )


def students(filename):
    """Whether code compiled from filename is the student's: a submission's label ("multihead.py"), a notebook's
    cell (ipykernel compiles each under a temporary path), a file of their own; not the kit's or a library's."""
    if Path(filename).is_absolute():
        return not filename.startswith(NOT_STUDENTS)
    # As child/runtime.py tells a label: the kit's code that a child loads, and frozen modules, have labels too.
    return not filename.startswith((REFERENCE_LABEL, "<frozen "))


def _line(frame, line):
    """The student's line as they wrote it (a notebook cell's file is a temporary path that says nothing)."""
    return f"your line `{linecache.getline(frame.f_code.co_filename, line).strip()}` (line {line})"


def _part(code):
    """A class's name for its method's code, a function's own name otherwise."""
    qualified = code.co_qualname.rsplit(".<locals>.", 1)[-1]
    return qualified.split(".")[0]


def _kind(tensor):
    kind = "bool" if tensor.dtype == torch.bool else "float" if tensor.is_floating_point() else "integer"
    return f"{kind} tensor {tuple(tensor.shape)}"


def earlier_line(earlier):
    """What to change first where the part checked runs earlier parts that fail their own checks."""
    if not earlier:
        return None
    one = len(earlier) == 1
    checks = ", ".join(f"check_{part}" for part in earlier)
    return (
        f"Your {', '.join(earlier)} {'fails its' if one else 'fail their'} own public checks ({checks}), and this "
        f"part runs {'it' if one else 'them'}: fix {'it' if one else 'them'} first; what fails here may follow from "
        f"{'it' if one else 'them'}."
    )


def quiet_faults():
    """Make Python's hook for an uncaught exception print a StudentFault as a notebook does, on its own line, with
    no traceback (a script that runs a check, outside IPython); anything else as the hook before did."""
    if getattr(sys.excepthook, "func", None) is _quiet_hook:
        return
    sys.excepthook = functools.partial(_quiet_hook, sys.excepthook)


def _quiet_hook(before, kind, error, trace):
    if isinstance(error, StudentFault):
        print("\n".join(error._render_traceback_()), file=sys.stderr)
    else:
        before(kind, error, trace)
