"""The tripwire: a torch function mode, on while a component's code runs in its child, that records every call
to a kernel the component may not delegate to, and stops a call that would run the student's Python code
where the mode cannot watch it (a tensor subclass, a callback, an argument's own methods). Forbidden and
Unwatched are the two ways a component's run ends here.

A function mode steps aside while it runs the function it was handed: torch's own Python code (a tensor's
__deepcopy__, __reduce_ex__, backward) then runs unwatched, and whatever it calls back (a key's __hash__, a memo's
__eq__, an object's __reduce_ex__ or __torch_function__) with it. So while it has stepped aside for a Python
function, a dispatch mode (Beneath) watches the level below, where every kernel passes whoever called it: the
kernel is named as the mode names a function, and the Python code between it and the function mode must be
torch's own (docs/THREATS.md).
"""

from __future__ import annotations

import copy
import os
import sys
import types
from typing import TYPE_CHECKING, NoReturn, cast

import numpy as np
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from autograder.engine.contract.errors import StudentFault
from autograder.engine.contract.reasons import ZERO

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Collection, Mapping, Sequence
    from typing import Self

# The tensor types a call may involve: torch's own (a lazy module's parameters are uninitialised ones).
PLAIN_TENSORS = frozenset(
    {
        torch.Tensor,
        torch.nn.Parameter,
        torch.nn.Buffer,
        torch.nn.parameter.UninitializedParameter,
        torch.nn.parameter.UninitializedBuffer,
    }
)


# Where torch's own Python code is: a frame whose code comes from under it is torch's.
TORCH_FOLDER = os.path.dirname(torch.__file__) + os.sep

# Tensor methods that call Python code from inside a torch function, while this mode has stepped aside.
CALLBACKS = frozenset(
    {
        torch.Tensor.apply_,
        torch.Tensor.map_,
        torch.Tensor.map2_,
        torch.Tensor.register_hook,
        torch.Tensor.register_post_accumulate_grad_hook,
    }
)


# The types of torch's functions written in C: one runs no Python code but its arguments' own methods, which
# _foreign refuses. Any other function the mode is handed is Python code, run beneath the dispatch watch.
C_FUNCTIONS = frozenset(
    {
        types.BuiltinFunctionType,
        types.MethodDescriptorType,
        types.WrapperDescriptorType,
        types.MethodWrapperType,
        types.ClassMethodDescriptorType,
    }
)
# torch's own Python code copies a tensor's storage and __dict__ through these two functions of the standard library.
COPYING = frozenset({"deepcopy", "_deepcopy_dict"})


class Forbidden(StudentFault):
    """The student's code delegated its own subject to a library."""


class Unwatched(StudentFault):
    """The student's code would run where the tripwire cannot watch it: the component ends, delegation or not."""


class Tripwire(TorchFunctionMode):
    """Records every call to a torch function the graded component may not delegate to."""

    def __init__(
        self,
        forbidden: Collection[str],
        verdicts: dict[Callable[..., object], str | None],
        in_python: Collection[str] = (),
    ) -> None:
        super().__init__()
        self.forbidden = forbidden
        self.in_python = in_python  # patterns of torch's Python functions (spec.IN_PYTHON) looked for on the stack
        self.verdicts = verdicts  # {function: its name if it is forbidden, else None}, kept from call to call
        self.kernels: list[str] = []
        self.transformers = False
        self.refused: str | None = None  # why it stopped a call that would have run unwatched, if it did
        self.outside: types.FrameType | None = (
            None  # the frame that turned the tripwire on: nothing above it runs the student's code
        )
        # While this mode has stepped aside for a Python function of torch's: that function, and the frame that called it.
        self.aside_for: Callable[..., object] | None = None
        self.aside: types.FrameType | None = None
        self.beneath = Beneath(self)
        # {code: (its frame's globals, whether it is torch's, the kernel its name names)}, for the frames beneath
        self.torchs: dict[types.CodeType, tuple[dict[str, object], bool, str | None]] = {}

    def __enter__(self) -> Self:
        self.outside = sys._getframe(1)
        return super().__enter__()

    def __torch_function__(
        self,
        func: Callable[..., object],
        types: Collection[type],
        args: Sequence[object] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> object:
        self.note(func)
        if self.in_python and (caller := _torch_caller(self.outside, self.in_python)):
            self.kernels.append(f"torch's {caller}")
        # What would run the student's Python code inside this call, after this mode has stepped aside, unseen: a
        # tensor subclass's own __torch_function__, a callback, an argument's own __index__ or __len__. Not while
        # torch compiles (only its own kernels do, flex attention's, which the name above has already caught).
        compiling = torch.compiler.is_compiling()
        if compiling:
            pass
        elif not PLAIN_TENSORS.issuperset(types) and not all(map(_torchs_own, types)):
            self.refuse(ZERO["tensor subclass"])
        elif func in CALLBACKS:
            self.refuse(ZERO["callback"].format(function=_function_name(func)))
        elif (foreign := _foreign(args, kwargs)) is not None:
            self.refuse(ZERO["foreign argument"].format(foreign=foreign, function=_function_name(func)))
        # The frame walk costs; it is only needed once transformers has been imported at all.
        if "transformers" in sys.modules and _inside_transformers(self.outside):
            self.transformers = True
        if compiling or type(func) in C_FUNCTIONS or self.aside is not None:
            return func(*args, **(kwargs or {}))
        self.aside_for, self.aside = func, sys._getframe()
        try:
            with self.beneath:
                return func(*args, **(kwargs or {}))
        finally:
            self.aside_for = self.aside = None

    def note(self, func: Callable[..., object]) -> None:
        """Record func if it is a kernel this component may not delegate to. Keyed by the function itself: this runs
        on every torch call the student's code makes."""
        try:
            kernel: str | None | bool = self.verdicts.get(func, False)
        except TypeError:  # an unhashable callable is judged each time
            kernel = self._kernel(func)
        if kernel is False:
            kernel = self.verdicts[func] = self._kernel(func)
        if kernel:
            self.kernels.append(f"torch's {kernel}")

    def below(self, op: Callable[..., object], kinds: Collection[type]) -> None:
        """A kernel about to run while this mode has stepped aside: named as a function is, and refused unless every
        Python function between it and this mode's call is torch's own."""
        self.note(getattr(op, "overloadpacket", op))  # named without its overload: native_layer_norm
        if not PLAIN_TENSORS.issuperset(kinds) and not all(map(_torchs_own, kinds)):
            self.refuse(ZERO["tensor subclass"])
        # The kernel's caller (0 is this frame, 1 Beneath's); none on a thread of torch's own, as a backward pass on a
        # GPU runs, where only what a hook of the student's called would have one.
        frame: types.FrameType | None = sys._getframe(1).f_back
        while frame is not None and frame is not self.aside:
            code = frame.f_code
            # Kept from kernel to kernel: a backward pass runs hundreds under the same few frames of torch's.
            known = self.torchs.get(code)
            if known is None or known[0] is not frame.f_globals:
                known = self.torchs[code] = (frame.f_globals, _torchs(frame), self._kernel_named(code.co_qualname))
            if known[1]:
                if known[2]:
                    self.kernels.append(f"torch's {known[2]}")
            elif not (code.co_name in COPYING and frame.f_globals is vars(copy)):
                self.refuse(ZERO["callback"].format(function=_function_name(self.aside_for or op)))
            frame = frame.f_back

    def refuse(self, message: str) -> NoReturn:
        """Stop the call; the guard says why when it ends, whatever caught the exception on the way (torch's
        compiled flex attention turns it into one of its own)."""
        self.refused = self.refused or message
        raise Unwatched(message)

    def _kernel(self, func: Callable[..., object]) -> str | None:
        """The function's name if it is one this component may not delegate to, else None."""
        return self._kernel_named(_function_name(func))

    def _kernel_named(self, name: str) -> str | None:
        key = name.replace("_", "").lower()
        return name if any(pattern in key for pattern in self.forbidden) else None


class Beneath(TorchDispatchMode):
    """The dispatch watch: on while the tripwire has stepped aside for torch's Python code, it sees every kernel that
    runs there, whoever called it."""

    def __init__(self, tripwire: Tripwire) -> None:
        super().__init__()
        self.tripwire = tripwire

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Else torch wraps __torch_dispatch__ to keep its compiler out, which imports the compiler (seconds) on first use.
        return False

    def __torch_dispatch__(
        self,
        func: Callable[..., object],
        types: Collection[type],
        args: Sequence[object] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> object:
        self.tripwire.below(func, types)
        return func(*args, **(kwargs or {}))


# What torch may read from an argument without running Python code of the student's: the values a computation
# passes (its inputs, sizes, dtypes, masks) and containers of them.
PLAIN_VALUES = frozenset(
    {
        bool,
        int,
        float,
        complex,
        str,
        bytes,
        type(None),
        slice,
        type(Ellipsis),
        range,
        torch.dtype,
        torch.device,
        torch.Size,
        torch.layout,
        torch.memory_format,
        torch.Generator,
    }
)


# Every call passes these, so they are looked up in one set before anything else is asked of a value.
PLAIN = PLAIN_VALUES | PLAIN_TENSORS


def _foreign(args: Sequence[object], kwargs: Mapping[str, object] | None) -> str | None:
    """The type name of the first argument whose Python methods torch would run while it reads it (an object of
    the student's own class, with __index__ or __len__ of its own); None when there is none."""
    pending, seen = [*args, *(kwargs or {}).values()], 0
    while pending and seen < 10_000:
        value, seen = pending.pop(), seen + 1
        kind = type(value)
        if kind in PLAIN or (issubclass(kind, torch.Tensor) and _torchs_own(kind)):
            continue
        # Read through the exact types' own methods, which kind (type() itself) vouches for: cast says so to mypy.
        if kind is list or kind is dict:
            pending += (
                list.__iter__(cast("list[object]", value))
                if kind is list
                else dict.values(cast("dict[object, object]", value))
            )
            continue
        if issubclass(kind, tuple) and _plain_tuple(kind):
            pending += tuple.__iter__(cast("tuple[object, ...]", value))
            continue
        if (
            isinstance(value, (np.ndarray, np.generic))
            and kind.__module__.split(".")[0] == "numpy"
            and value.dtype != object
        ):
            continue
        return kind.__name__ if isinstance(kind.__name__, str) else "value"
    return None


def _plain_tuple(kind: type) -> bool:
    """A tuple subclass (a NamedTuple) whose items torch reads as a tuple's, running none of its methods."""
    return not any(
        name in vars(cls) for cls in kind.__mro__[:-2] for name in ("__iter__", "__getitem__", "__len__", "__index__")
    )


def _torchs_own(kind: type) -> bool:
    """True for torch's own tensor types (a parameter, a lazy module's, those its kernels use inside): each is
    found at its module and name inside torch, where no student class can put itself."""
    if kind in PLAIN_TENSORS:
        return True
    module = getattr(kind, "__module__", "")
    found = sys.modules.get(module) if isinstance(module, str) and module.split(".")[0] == "torch" else None
    owner = found
    for part in str(getattr(kind, "__qualname__", "")).split("."):
        owner = getattr(owner, part, None)
    return found is not None and owner is kind


def _torchs(frame: types.FrameType) -> bool:
    """Whether the frame runs torch's own code: its globals are a torch module's, which no student code can run in."""
    name = frame.f_globals.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) and name.split(".")[0] == "torch" else None
    return module is not None and vars(module) is frame.f_globals


def _function_name(func: Callable[..., object]) -> str:
    """The name torch's function was defined with: a Python function's code object keeps it whatever its
    __name__ was set to (and the static check flags replacing __code__)."""
    code = getattr(func, "__code__", None)
    name = code.co_name if isinstance(code, types.CodeType) else getattr(func, "__name__", None)
    return name if isinstance(name, str) else str(func)


def _torch_caller(outside: types.FrameType | None, patterns: Collection[str]) -> str | None:
    """The name of a function of torch's own Python code, between this torch call and the frame that turned the
    tripwire on, that one of patterns names (as _kernel matches them); None when there is none."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and frame is not outside:
        code = frame.f_code
        if code.co_filename.startswith(TORCH_FOLDER) and any(
            pattern in code.co_name.replace("_", "").lower() for pattern in patterns
        ):
            return code.co_name
        frame = frame.f_back
    return None


def _inside_transformers(outside: types.FrameType | None) -> bool:
    """Whether a frame between this torch call and the one that turned the tripwire on runs transformers' code."""
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None and frame is not outside:
        if f"{os.sep}transformers{os.sep}" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False
