"""The policy (contract/policy/) held against the libraries themselves, in the jail, where torch is trusted.

The static check (scrutiny.py, scan.py) asks here whether a module lends a name, what a dotted name reaches, and which
attribute names any value may use. The child runs student code with students_builtins(): the policy's
builtins, whose attribute access by a computed name asks the same questions of the live objects.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import types
from typing import TYPE_CHECKING

import torch
from torch.overrides import get_overridable_functions

from autograder.engine.contract import policy, spec
from autograder.engine.contract.errors import StudentFault

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Collection, Iterable, Sequence

MISSING = object()
# The packages student code may import, the submission's own modules aside: never builtins, whose names are the
# policy's to lend (a quiz sheet's `import builtins` reached open and eval).
LIBRARIES = frozenset(name.split(".")[0] for name in policy.MODULES)
# Where an object a module lends was defined must be a library of the list, or Python's builtins (the C halves
# of the standard library, _operator or _functools, count as their modules).
HOMES = LIBRARIES | {"builtins"}
VALUES = (torch.dtype, torch.layout, torch.memory_format, float, int, bool, type(None))


class Refused(StudentFault):
    """Student code reached, by a computed name, for something the policy does not lend."""


def module_rule(name: str) -> object:
    """How a module lends its names (policy.PUBLIC, a rule, or a tuple of names); None outside the list."""
    if name in policy.MODULES:
        return policy.MODULES[name]
    if name.startswith("transformers."):
        return policy.TRANSFORMERS_MODELS
    return None


def outside(module_name: str) -> str:
    """Why a module outside the list is refused: its own reason where the policy gives one."""
    parts = module_name.split(".")
    for end in range(len(parts), 0, -1):
        why = policy.MODULE_REASONS.get(".".join(parts[:end]))
        if why:
            return f"{module_name}: {why}"
    return f"{module_name} is {policy.OUTSIDE}"


@functools.cache
def imported(name: str) -> types.ModuleType | None:
    """The module of that name, imported here; None where it cannot be (not installed, or broken)."""
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a library that does not import lends nothing
        return None


def lent(module_name: str, attribute: str) -> tuple[object, str | None]:
    """(the object module_name.attribute, None) where the module lends it; (object or MISSING, why) otherwise."""
    module = imported(module_name)
    obj = getattr(module, attribute, MISSING) if module is not None else MISSING
    if obj is MISSING and module_rule(f"{module_name}.{attribute}") is not None:
        obj = imported(f"{module_name}.{attribute}") or MISSING  # a submodule not imported yet
    if attribute.startswith("_") and attribute not in policy.DUNDERS_READ:
        return obj, "a library's private internals"
    full = f"{module_name}.{attribute}"
    if full in policy.DENIED:
        return obj, policy.DENIED[full]
    if obj is MISSING:
        return obj, None  # not there: the import or the access fails as it would anywhere
    if isinstance(obj, types.ModuleType):
        return obj, None if module_rule(obj.__name__) is not None else outside(obj.__name__)
    rule = module_rule(module_name)
    if isinstance(rule, tuple):
        return obj, None if attribute in rule else f"{module_name} lends a submission only {', '.join(rule)}"
    home = _home(obj)
    if home and (home.split(".")[0].lstrip("_") not in HOMES or _within(home, policy.TORCH_MACHINERY)):
        return obj, f"it comes from {home}, which is {policy.OUTSIDE}"
    if rule == policy.TORCH_COMPUTING and not _computing(attribute, obj):
        return obj, f"torch.{attribute} is not part of torch's tensor-computing API"
    if rule == policy.TRANSFORMERS_MODELS and not (_configuration(obj) or _transformers_model(module_name, obj)):
        return obj, "transformers lends a submission its configurations, and its models and layers to name"
    return obj, None


def resolve(dotted: str) -> object:
    """The object a dotted library name reaches, or MISSING."""
    parts = dotted.split(".")
    obj: object = imported(parts[0])
    if obj is None:
        return MISSING
    for part in parts[1:]:
        try:
            obj = getattr(obj, part, MISSING)
        except Exception:  # noqa: BLE001 - a library's property that raises reaches nothing
            return MISSING
        if obj is MISSING:
            return obj
    return obj


def judge(dotted: str, own_attributes: Collection[str]) -> tuple[str | None, str | None, object]:
    """(reason, kind, object) for a dotted library name: a held construct (kind None), a kernel (kind its
    delegation), or (None, None, object) where the policy lends it."""
    parts = dotted.split(".")
    if module_rule(parts[0]) is None:
        return f"uses {dotted} ({outside(parts[0])})", None, None
    obj: object = imported(parts[0])
    if obj is None:
        return None, None, None  # not installed: importing it fails in the child, as it would anywhere
    found = None
    for end in range(2, len(parts) + 1):
        prefix, part = ".".join(parts[:end]), parts[end - 1]
        if isinstance(obj, types.ModuleType):
            nxt, reason = lent(obj.__name__, part)
        else:
            reason = value_reason(part, own_attributes)
            try:
                nxt = getattr(obj, part, MISSING)
            except Exception:  # noqa: BLE001 - a library's property that raises reaches nothing
                nxt = MISSING
        if reason:
            return f"uses {prefix} ({reason})", None, None
        if nxt is MISSING:
            return None, None, None
        found = kernel(prefix, nxt) or found  # the longest chain that is one names it best
        obj = nxt
    if found:
        return found[0], found[1], obj
    return None, None, obj


def _within(module_name: str, packages: Iterable[str]) -> bool:
    return any(module_name == package or module_name.startswith(package + ".") for package in packages)


def _transformers_model(module_name: str, obj: object) -> bool:
    """A layer, a model or an activation of transformers' modeling code (a kernel to name), not its hub,
    files, tokenizers or pipelines."""
    if isinstance(obj, type):
        return issubclass(obj, torch.nn.Module)
    return bool(policy.TRANSFORMERS_MODELING.match(_home(obj) or module_name))


def _computing(attribute: str, obj: object) -> bool:
    """torch's rule: a function a tensor may override, its in-place form, a name of TORCH_NAMES, or a value."""
    overridable = _overridable()
    return (
        attribute in policy.TORCH_NAMES
        or obj in overridable
        or isinstance(obj, VALUES)
        or (attribute.endswith("_") and getattr(torch, attribute[:-1], None) in overridable)
    )


@functools.cache
def _overridable() -> frozenset[Callable[..., object]]:
    found: set[Callable[..., object]] = set()
    for functions in get_overridable_functions().values():
        found.update(f for f in functions if _hashable(f))
    return frozenset(found)


def _hashable(obj: object) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def _home(obj: object) -> str | None:
    """The module a function or class was defined in; None for other values."""
    if not isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else None


def _configuration(obj: object) -> bool:
    name = _home(obj) or ""
    return ".configuration_" in name and isinstance(obj, type)


def kernel(prefix: str, obj: object) -> tuple[str, str] | None:
    """(reason, kind) where obj is a library implementation a component may not delegate to; else None."""
    full = _full_name(obj) or prefix
    if full.startswith("transformers.") and not _configuration(obj):
        return f"names {prefix}, part of the transformers library", spec.TRANSFORMERS
    if not full.startswith("torch"):
        return None
    key = f"{full}.{prefix}".replace("_", "").lower()
    for kind, patterns in spec.KERNELS.items():
        if any(pattern in key for pattern in patterns):
            return f"names {prefix}, torch's own {kind}", kind
    return None


def _full_name(obj: object) -> str | None:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    name, home = getattr(obj, "__name__", None), _home(obj)
    return f"{home}.{name}" if home and isinstance(name, str) else None


def _object(dotted: str) -> type | None:
    """The object at a dotted path of a library (a class of policy.VALUE_TYPES); None where there is none."""
    module, _, name = dotted.rpartition(".")
    found = imported(module)
    return getattr(found, name, None) if found is not None else None


def _public(names: Iterable[str]) -> set[str]:
    return {name for name in names if not name.startswith("_")}


@functools.cache
def value_attributes() -> frozenset[str]:
    """The public attribute names of every value a course's code holds (policy.VALUE_TYPES and VALUE_INSTANCES)."""
    names = set(policy.VALUE_NAMES | policy.CONFIG_ATTRIBUTES | policy.CONTRACT_ATTRIBUTES)
    for dotted in policy.VALUE_TYPES:
        names |= _public(dir(_object(dotted) or object))
    for dotted, args in policy.VALUE_INSTANCES.items():
        kind = _object(dotted)
        if kind is not None:
            names |= _public(vars(kind(*args)))
    return frozenset(names - set(policy.VALUE_DENIED))


@functools.cache
def interpreter_attributes() -> frozenset[str]:
    """The public attributes of frames, code, generators and functions that no value of a course has."""
    names: set[str] = set()
    for name in policy.INTERPRETER_TYPES:
        names |= _public(dir(getattr(types, name)))
    return frozenset(names - value_attributes())


@functools.cache
def library_privates() -> frozenset[str]:
    """Underscore attributes of torch's and numpy's values and of Python's objects: never a class's own."""
    names: set[str] = set()
    for dotted in (*policy.VALUE_TYPES, "builtins.object", "builtins.type", "types.FunctionType", "types.ModuleType"):
        names |= {n for n in dir(_object(dotted) or object) if n.startswith("_")}
    for dotted, args in policy.VALUE_INSTANCES.items():
        kind = _object(dotted)
        if kind is not None:
            names |= {n for n in vars(kind(*args)) if n.startswith("_")}
    return frozenset(names)


def warm() -> None:
    """Compute the tables every check and every child reads, once, in the zygote: a child computed them again after
    each fork."""
    _overridable()
    library_privates()
    interpreter_attributes()


def value_reason(attribute: str, own: Collection[str] = frozenset(), on_self: bool = False) -> str | None:
    """Why code may not use .attribute on a value (own: the submission's own attribute names; on_self: the value
    is the self or cls of a method, where a class's own private names may be read); None if it may."""
    if attribute in policy.VALUE_DENIED:
        return policy.VALUE_DENIED[attribute]
    if attribute in interpreter_attributes():
        return "the interpreter's frames, code and functions"
    if attribute.startswith("__") and attribute.endswith("__"):
        return None if attribute in policy.DUNDERS_READ else "Python's object internals"
    if attribute.startswith("_"):
        if attribute in policy.NAMEDTUPLE or (on_self and attribute in own and attribute not in library_privates()):
            return None
        return "a private name, which code may read only on self, of its own class"
    if attribute in value_attributes() or attribute in own:
        return None
    return f"no value a course's code holds has .{attribute}"


def base_reason(obj: object) -> str | None:
    """Why a class may not derive from obj; None where it may."""
    if not isinstance(obj, type):
        # typing.NamedTuple and typing.Generic[...] are not classes, but say which class to derive from.
        return (
            None if _home(obj) == "typing" or type(obj).__module__ == "typing" else "a base class the check cannot name"
        )
    for dotted, why in policy.BASES_DENIED.items():
        denied = _object(dotted)
        if denied is not None and issubclass(obj, denied):
            return why
    return None


def _refusal(obj: object, name: str, own: Collection[str]) -> str | None:
    """Why student code may not read obj.name by a computed name; None where it may. Looser than the static
    check, which knows the submission's own names: any public name but the interpreter's and the refused, the
    listed dunders, no private name; a library module's names as the policy lends them."""
    if isinstance(obj, types.ModuleType):
        if obj.__name__.split(".")[0] in own:
            return "Python's object internals" if name.startswith("__") and name not in policy.DUNDERS_READ else None
        return lent(obj.__name__, name)[1] if module_rule(obj.__name__) is not None else outside(obj.__name__)
    if name.startswith("_") and not name.startswith("__"):
        return None if name in policy.NAMEDTUPLE else "a private name"
    if name in policy.FORMATTERS and (isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))):
        return f"{policy.FORMATTERS[name]} reads attributes by names in text"
    return value_reason(name, own={name})


def _imported(name: str, fromlist: Sequence[str] | None, level: int, own: Collection[str]) -> str:
    """The module a student's import imports: a statement `import torch.utils.checkpoint` (fromlist None; a library's C
    code passes a list) binds torch alone, which is all it binds, and the sub-module outside the list is not imported."""
    root = name.split(".")[0]
    return root if level == 0 and fromlist is None and root not in own and module_rule(name) is None else name


def students_builtins(own_modules: Iterable[str] = ()) -> dict[str, object]:
    """The builtins student code runs with: the policy's, with attribute access and imports by name checked
    against the live objects (a computed name the static check could not read)."""
    table = {name: getattr(builtins, name) for name in policy.BUILTINS if hasattr(builtins, name)}
    own = frozenset(own_modules)

    def checked(obj: object, name: object) -> None:
        if not isinstance(name, str):
            raise TypeError(f"attribute name must be a string, not {type(name).__name__}")
        reason = _refusal(obj, name, own)
        if reason:
            raise Refused(f"the attribute {name!r}, by a computed name: {reason}")

    def _getattr(obj: object, name: str, *default: object) -> object:
        checked(obj, name)
        return getattr(obj, name, *default)

    def _hasattr(obj: object, name: str) -> bool:
        checked(obj, name)
        return hasattr(obj, name)

    def _setattr(obj: object, name: str, value: object) -> None:
        if isinstance(obj, (type, types.ModuleType)):
            raise Refused(f"setattr on {getattr(obj, '__name__', 'a class')}: it would change a class or module")
        checked(obj, name)
        setattr(obj, name, value)

    def _delattr(obj: object, name: str) -> None:
        if isinstance(obj, (type, types.ModuleType)):
            raise Refused(f"delattr on {getattr(obj, '__name__', 'a class')}: it would change a class or module")
        checked(obj, name)
        delattr(obj, name)

    def _import(
        name: str,
        globals: dict[str, object] | None = None,  # noqa: A002 - __import__'s own signature
        locals: dict[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> types.ModuleType:
        # Also the import a library's C code makes while student code calls it (torch imports torch.storage so):
        # anything of a library on the list may import itself; the check has judged the student's own imports.
        if level == 0 and name.split(".")[0] not in own | LIBRARIES:
            raise ImportError(f"importing {outside(name)}")
        return builtins.__import__(_imported(name, fromlist, level, own), globals, locals, fromlist, level)

    table.update(
        getattr=_getattr,
        hasattr=_hasattr,
        setattr=_setattr,
        delattr=_delattr,
        type=type,
        __import__=_import,
        __build_class__=builtins.__build_class__,
        __name__="builtins",
    )
    return table
