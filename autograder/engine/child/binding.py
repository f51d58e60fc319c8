"""What a child binds to the names of the components it does not grade: the reference, plus the student's additions.

Isolation gives every other component the reference's code, so that a bug costs points only where it
is. A correct student who uses something of their own on another part (a `from_config` classmethod, a
helper method, an attribute their constructor sets, a keyword argument their function takes) must not
lose points for it. The rule: the reference decides everything it has; whatever it lacks and the
student's own definition has comes from the student's. So the student's additions work, and the
student's version of what the reference does runs only where the reference cannot run at all.
Imported only in the child (it needs torch).
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any

from torch import nn

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable

# Attribute values a constructor sets that can be read off the student's own object as they are.
PLAIN = (int, float, bool, str, bytes, type(None), tuple, frozenset)


def extend(reference: object, student: object) -> object:
    """What a name is bound to while another component is graded."""
    if isinstance(reference, type) and isinstance(student, type):
        return _extended_class(reference, student)
    if inspect.isfunction(reference) and callable(student):
        return _extended_function(reference, student)
    return reference


def _extended_function(reference: Callable[..., Any], student: Callable[..., Any]) -> Callable[..., Any]:
    """The reference, given the arguments it takes: an extra one of the student's that changes nothing (a
    `dropout=` module in eval mode) is left out. A dropout module in train mode handed to attention (The
    Annotated Transformer's `attention(..., dropout=self.dropout)`) is applied where BERT applies it, to
    the reference's attention probabilities before they weight the values. Only a call the reference
    cannot run at all (keywords under other names, another live dropout) goes to the student's own
    function. A tuple it returns answers to the field names of the student's own result (a NamedTuple's).
    """
    signature = inspect.signature(reference)
    positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values())

    @functools.wraps(reference)
    def call(*args: object, **kwargs: object) -> object:
        taken = {name: value for name, value in kwargs.items() if name in signature.parameters}
        live = [
            value
            for name, value in [
                *((None, value) for value in args[positional:]),
                *((name, value) for name, value in kwargs.items() if name not in signature.parameters),
            ]
            if _live_dropout(name, value)
        ]
        try:
            bound = signature.bind(*args[:positional], **taken)
        except TypeError:
            return student(*args, **kwargs)
        if not live:
            result = reference(*bound.args, **bound.kwargs)
        elif len(live) == 1 and isinstance(live[0], nn.Module) and "value" in signature.parameters:
            output, weights = reference(*bound.args, **bound.kwargs)
            result = (live[0](weights) @ bound.arguments["value"], weights)
        else:
            return student(*args, **kwargs)
        if type(result) is tuple:
            result = _Result(result)
            result.__dict__["_student_call"] = functools.partial(student, *args, **kwargs)
        return result

    return call


def _live_dropout(name: str | None, value: object) -> bool:
    """A module in train mode (a dropout: nothing else is handed to a function to apply), or a nonzero
    probability given as a dropout keyword."""
    if isinstance(value, nn.Module):
        return value.training
    return "dropout" in (name or "") and isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


class _Result(tuple):
    """The reference's values, read by field name as the student's own result names them."""

    def __getattr__(self, name: str) -> object:
        call = self.__dict__.get("_student_call")
        if call is None or name.startswith("__"):
            raise AttributeError(name)
        if "_student_fields" not in self.__dict__:
            self.__dict__["_student_fields"] = tuple(getattr(call(), "_fields", ()))
        fields = self.__dict__["_student_fields"]
        if name not in fields or len(fields) != len(self):
            raise AttributeError(f"'tuple' object has no attribute '{name}'")
        return self[fields.index(name)]


def _extended_class(reference: type[nn.Module], student: type) -> type:
    """A subclass of the reference with the student's methods and class attributes that the reference lacks.

    An instance attribute the reference's constructor does not set is read, when first asked for, off
    the student's own object built with the same arguments: plain values (sizes, flags) and modules
    without parameters (a dropout) only, since weights are loaded into the reference's modules.
    """
    additions: dict[str, object] = {}
    for cls in reversed(student.__mro__):
        if cls in reference.__mro__:
            continue
        for name, value in vars(cls).items():
            if not (name.startswith("__") and name.endswith("__")) and not hasattr(reference, name):
                additions[name] = value

    def __init__(self: nn.Module, *args: object, **kwargs: object) -> None:
        reference.__init__(self, *args, **kwargs)
        self.__dict__["_student_arguments"] = (args, kwargs)

    def __getattr__(self: nn.Module, name: str) -> object:
        try:
            return reference.__getattr__(self, name)  # nn.Module's: parameters, buffers, submodules
        except AttributeError:
            if name.startswith("__") or "_student_arguments" not in self.__dict__:
                raise
        value = getattr(_students_own(self, student), name)
        if isinstance(value, PLAIN) or (isinstance(value, nn.Module) and not any(True for _ in value.parameters())):
            return value
        raise AttributeError(f"'{reference.__name__}' object has no attribute '{name}'")

    namespace = {
        **additions,
        "__init__": __init__,
        "__getattr__": __getattr__,
        "__module__": reference.__module__,
        "__qualname__": reference.__qualname__,
        "__doc__": reference.__doc__,
    }
    return type(reference.__name__, (reference,), namespace)


def _students_own(obj: object, student: type) -> object:
    if "_student_object" not in obj.__dict__:
        args, kwargs = obj.__dict__["_student_arguments"]
        obj.__dict__["_student_object"] = student(*args, **kwargs)
    return obj.__dict__["_student_object"]
