"""Execute source units as modules and collect the SPEC names they define.

Used in the child for student code (and for the references it may hold), and in-process by the kit's
own trusted tools. A unit runs as Python runs it: its `from __future__` imports hold for all of it (and,
as in IPython, for the notebook's later cells), and a module's name is never "__main__". The one
difference is forgiveness: each top-level statement runs on its own, so one broken statement costs only
what it defines, where Python would stop at it.
"""

from __future__ import annotations
import __future__

import ast
import importlib.abc
import importlib.util
import linecache
import marshal
import os
import sys
import traceback
import types
from typing import TYPE_CHECKING, Any

from autograder.engine.contract.protocol import REFERENCE_LABEL

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Collection, Iterable, Mapping, Sequence
    from importlib.machinery import ModuleSpec

    import numpy as np
    import torch

    # A unit as loader.Unit.as_message sends it (module, label, code, skip), or the reference's compiled one.
    UnitMessage = dict[str, Any]

FUTURE_FLAGS = {name: getattr(__future__, name).compiler_flag for name in __future__.all_feature_names}


class SourceImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves modules from source units, so `from attention import ...` finds the submission's own file.

    A notebook's module starts with the SPEC names that the modules loaded before it defined (over the
    given ones), as the course notebooks' setup cell gives it the student's earlier parts: a quick test
    of an earlier class then runs here as it did in Jupyter.
    """

    def __init__(
        self,
        units: Iterable[UnitMessage],
        shared_names: Collection[str] = (),
        given: Mapping[str, object] | None = None,
        builtins: dict[str, object] | None = None,
    ) -> None:
        self.builtins = builtins  # the builtins student code runs with (allowed.students_builtins); None: Python's
        self.units: dict[str, list[UnitMessage]] = {}
        for unit in units:
            self.units.setdefault(unit["module"], []).append(unit)
        self.problems: list[str] = []
        self.shared_names = frozenset(shared_names)
        self.shared = dict(given or {})

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in self.units:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        units = self.units[module.__name__]
        namespace = vars(module)
        if self.builtins is not None:
            namespace["__builtins__"] = self.builtins
        seeded = dict(self.shared) if any(unit["label"].split(",")[0].endswith(".ipynb") for unit in units) else {}
        namespace.update(seeded)
        # Student code's annotations stay text, never evaluated: the static check does not read them (scan.py).
        flags = 0 if self.builtins is None else FUTURE_FLAGS["annotations"]
        for unit in units:
            flags = self._run(unit, namespace, flags)
        self.shared.update({n: v for n, v in namespace.items() if n in self.shared_names and seeded.get(n) is not v})

    def _run(self, unit: UnitMessage, namespace: dict[str, object], flags: int) -> int:
        """Run one unit statement by statement under the future flags in force; returns them, updated.

        A unit of the kit's compiled reference (sandbox.reference_source) runs whole: it has no text."""
        if "compiled" in unit:
            exec(marshal.loads(bytes(unit["compiled"])), namespace)
            return flags
        if not unit["label"].startswith(REFERENCE_LABEL):
            # Tracebacks and messages can then quote the student's own line (and never the kit's).
            lines = unit["code"].splitlines(keepends=True)
            linecache.cache[unit["label"]] = (len(unit["code"]), None, lines, unit["label"])
        try:
            tree = ast.parse(unit["code"], filename=unit["label"])
            flags |= _future_flags(tree)
            # The whole unit is compiled once for the errors only Python's compiler finds: a __future__
            # import after other code, `return` outside a function.
            compile(tree, unit["label"], "exec", flags=flags, dont_inherit=True)
        except SyntaxError as error:
            self.problems.append(f"{unit['label']}: syntax error on line {error.lineno}: {error.msg}")
            return flags
        skipped = {tuple(where) for where in unit.get("skip", ())}
        for statement in tree.body:
            if (statement.lineno, statement.col_offset) in skipped:
                continue  # held or skipped by the static check (scrutiny.py): it never runs
            stub(statement, skipped)
            code = compile(
                ast.Module([statement], type_ignores=[]), unit["label"], "exec", flags=flags, dont_inherit=True
            )
            try:
                exec(code, namespace)
            except BaseException as error:  # noqa: BLE001 - SystemExit at import is a student bug too
                self.problems.append(describe(error))
        return flags


def stub(statement: ast.stmt, skipped: Collection[tuple[int, ...]]) -> None:
    """Replace the body of each method the static check skipped (one that uses a held construct and that no code
    calls by name) with a raise: called by a computed name, it stops there."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (node.lineno, node.col_offset) in skipped:
            why = f"{node.name} uses what grading does not run (see the notes), so it was not run"
            node.body = [
                ast.Raise(
                    exc=ast.Call(ast.Name("NotImplementedError", ast.Load()), [ast.Constant(why)], []), cause=None
                )
            ]
            ast.fix_missing_locations(ast.copy_location(node.body[0], node))


def _future_flags(tree: ast.Module) -> int:
    """The compiler flags of the unit's `from __future__ import ...` statements."""
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= FUTURE_FLAGS.get(alias.name, 0)
    return flags


def load_modules(
    units: Iterable[UnitMessage],
    keep: bool = False,
    shared_names: Collection[str] = (),
    given: Mapping[str, object] | None = None,
    builtins: dict[str, object] | None = None,
) -> tuple[dict[str, types.ModuleType], list[str]]:
    """Import every module of the units; returns {module name: module} and the problems met.

    Module names are the submission's own file names. Unless keep is set they are forgotten again,
    so that the next load (the student's after the reference's) can use the same names. The child
    keeps the student's, for code that imports its own modules inside a function. shared_names are
    the names a notebook's module starts with, from the modules loaded before it, or else from given.
    """
    importer = SourceImporter(units, shared_names, given, builtins)
    names = list(importer.units)
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.meta_path.insert(0, importer)
    modules: dict[str, types.ModuleType] = {}
    try:
        for name in names:
            try:
                modules[name] = importlib.import_module(name)
            except BaseException as error:  # noqa: BLE001
                importer.problems.append(f"{name}: {describe(error)}")
    finally:
        if not keep:
            sys.meta_path.remove(importer)
            for name in names:
                sys.modules.pop(name, None)
            sys.modules.update(saved)
    return modules, importer.problems


def collect(
    modules: Mapping[str, types.ModuleType], owners: Mapping[str, str], wanted: Iterable[str]
) -> dict[str, Any]:
    """The objects behind the wanted SPEC names, each from the module that owns it."""
    found = {}
    for name in wanted:
        module = modules.get(owners.get(name, ""))
        if module is not None and name in vars(module):
            found[name] = vars(module)[name]
    return found


def load_reference(submission_message: dict[str, Any], wanted: Iterable[str]) -> dict[str, Any]:
    """In-process load of trusted code, as the kit's own tools need: {name: object}."""
    modules, problems = load_modules(submission_message["units"])
    if problems:
        raise RuntimeError("the reference does not load: " + "; ".join(problems))
    return collect(modules, submission_message["owners"], wanted)


def _is_student(filename: str) -> bool:
    # Student code is compiled under labels such as "multihead.py"; library and kit frames have absolute
    # paths, and the kit's code that a child loads has labels starting with REFERENCE_LABEL.
    # Frozen modules (`exit` is _sitebuiltins') have labels too, of their own form.
    return not os.path.isabs(filename) and not filename.startswith((REFERENCE_LABEL, "<frozen "))


def student_frame(error: BaseException) -> traceback.FrameSummary | None:
    """The innermost frame of student code in the error's traceback, or None."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _is_student(f.filename)]
    return frames[-1] if frames else None


def describe(error: BaseException) -> str:
    """One line naming the exception and the student's line it came from; never a line of the kit's code."""
    frame = student_frame(error)
    where = ""
    if frame:
        line = frame.line or ""
        # A `raise` line only repeats the message; any other line shows what failed.
        quoted = f": {line}" if line and not line.startswith("raise") else ""
        # Library frames (torch's, the grader's) say nothing about whose code the error came from.
        inner = [
            f.filename
            for f in traceback.extract_tb(error.__traceback__)
            if _is_student(f.filename) or f.filename.startswith(REFERENCE_LABEL)
        ][-1]
        called = ", inside another part, the kit's, that this line calls" if inner.startswith(REFERENCE_LABEL) else ""
        where = f" ({frame.filename}, line {frame.lineno}{quoted}{called})"
    message = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {message[0] if message else ''}".rstrip(": ")
    return text + where


def load_parameters(module: torch.nn.Module, params: Mapping[str, np.ndarray]) -> None:
    """Copy {SPEC name: array} into module's parameters, strictly: every name must exist, with its shape,
    and no other; LookupError, with the grader's message, otherwise."""
    import numpy as np
    import torch
    from torch.nn.parameter import is_lazy

    # A lazy module (nn.LazyLinear, as d2l builds its projections) has no shape until it is given one: it
    # takes the weights' own, as load_state_dict gives it.
    with torch.no_grad():
        for name, param in module.named_parameters(remove_duplicate=False):
            if is_lazy(param) and name in params:
                param.materialize(params[name].shape)
    problems = _parameter_problems(module, {name: value.shape for name, value in params.items()})
    if problems:
        raise LookupError(problems)
    have = dict(module.named_parameters(remove_duplicate=False))
    with torch.no_grad():
        for name, value in params.items():
            have[name].copy_(torch.from_numpy(np.array(value)))


def _parameter_problems(module: torch.nn.Module, shapes: Mapping[str, tuple[int, ...]]) -> str | None:
    """The contract's names are attribute paths: a module kept under two names (an nn.Sequential's layers also
    kept as self.linear1) has its parameters under both, and a parameter is unexpected only where no name given
    reaches it."""
    have = dict(module.named_parameters(remove_duplicate=False))
    missing = sorted(set(shapes) - set(have))
    reached = {id(have[name]) for name in shapes if name in have}
    unexpected = sorted(name for name, param in module.named_parameters() if id(param) not in reached)
    problems = []
    if missing:
        problems.append("has no parameter " + ", ".join(missing))
    if unexpected:
        problems.append("has parameters SPEC does not name: " + ", ".join(unexpected))
    for name in sorted(set(shapes) & set(have)):
        if tuple(have[name].shape) != tuple(shapes[name]):
            problems.append(f"{name} has shape {tuple(have[name].shape)}, expected {tuple(shapes[name])}")
    return f"{type(module).__name__} " + "; ".join(problems) if problems else None


def patch_names(modules: Mapping[str, object], objects: Mapping[str, object]) -> None:
    """Bind each given name in every student module, so the student's code calls these objects.

    Functions look their globals up at call time, so this reaches code that was written before.
    """
    for module in modules.values():
        if isinstance(module, types.ModuleType):
            vars(module).update(objects)
