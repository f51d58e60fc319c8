"""Execute source units as modules and collect the SPEC names they define.

Used in the child for student code (and for the references it may hold), and in-process by the kit's
own trusted tools. Each top-level statement runs on its own, so one broken statement costs only what it
defines. Bare expressions and asserts at top level are skipped: in a notebook they are demonstrations
and self-checks whose only effect is output, and skipping them keeps loading fast in every child.
"""
import ast
import importlib.abc
import importlib.util
import linecache
import os
import sys
import traceback
import types


class SourceImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves modules from source units, so `from attention import ...` finds the submission's own file."""

    def __init__(self, units):
        self.units = {}
        for unit in units:
            self.units.setdefault(unit["module"], []).append(unit)
        self.problems = []

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.units:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        for unit in self.units[module.__name__]:
            self._run(unit, module.__dict__)

    def _run(self, unit, namespace):
        # Tracebacks and messages can then quote the student's own line.
        lines = unit["code"].splitlines(keepends=True)
        linecache.cache[unit["label"]] = (len(unit["code"]), None, lines, unit["label"])
        try:
            tree = ast.parse(unit["code"], filename=unit["label"])
        except SyntaxError as error:
            self.problems.append(f"{unit['label']}: syntax error on line {error.lineno}: {error.msg}")
            return
        for statement in tree.body:
            if isinstance(statement, (ast.Expr, ast.Assert)):
                continue
            code = compile(ast.Module([statement], type_ignores=[]), unit["label"], "exec")
            try:
                exec(code, namespace)
            except BaseException as error:  # noqa: BLE001 - SystemExit at import is a student bug too
                self.problems.append(describe(error))


def load_modules(units, keep=False):
    """Import every module of the units; returns {module name: module} and the problems met.

    Module names are the submission's own file names. Unless keep is set they are forgotten again,
    so that the next load (the student's after the reference's) can use the same names. The child
    keeps the student's, for code that imports its own modules inside a function.
    """
    importer = SourceImporter(units)
    names = list(importer.units)
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.meta_path.insert(0, importer)
    modules = {}
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


def collect(modules, owners, wanted):
    """The objects behind the wanted SPEC names, each from the module that owns it."""
    found = {}
    for name in wanted:
        module = modules.get(owners.get(name))
        if module is not None and name in vars(module):
            found[name] = vars(module)[name]
    return found


def load_reference(submission_message, wanted):
    """In-process load of trusted code, as the kit's own tools need: {name: object}."""
    modules, problems = load_modules(submission_message["units"])
    if problems:
        raise RuntimeError("the reference does not load: " + "; ".join(problems))
    return collect(modules, submission_message["owners"], wanted)


def student_frame(error):
    """The innermost frame of student code in the error's traceback, or None."""
    # Student code is compiled under labels such as "multihead.py"; library and kit frames have absolute paths.
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not os.path.isabs(f.filename)]
    return frames[-1] if frames else None


def describe(error):
    """One line naming the exception and the student's line it came from."""
    frame = student_frame(error)
    where = ""
    if frame:
        line = frame.line or ""
        # A `raise` line only repeats the message; any other line shows what failed.
        quoted = f": {line}" if line and not line.startswith("raise") else ""
        where = f" ({frame.filename}, line {frame.lineno}{quoted})"
    message = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {message[0] if message else ''}".rstrip(": ")
    return text + where


def patch_names(modules, objects):
    """Bind each given name in every student module, so the student's code calls these objects.

    Functions look their globals up at call time, so this reaches code that was written before.
    """
    for module in modules.values():
        if isinstance(module, types.ModuleType):
            vars(module).update(objects)
