"""The static check: code that reaches for the grader's internals is flagged for an instructor's review.

It reads the source before any of it runs (in the jail, child.parse), so nothing the student's code does
at run time can change its verdict. It is conservative on purpose: a course's transformer needs none of
what it flags, and a flagged component scores 0 until an instructor has read the code and passes
--accept-flagged. What it looks for: the ways to switch off the runtime tripwire or read the grader's
memory (torch's C internals and function modes, sys.meta_path and sys.modules, frames, gc walks,
ctypes), signals and /proc, code built from strings (exec, eval, computed getattr), and a torch
function a component may not delegate to, named anywhere in that component's own code.
"""
import ast

from autograder.engine import spec

# Modules whose import alone is flagged: each reaches below Python or builds code from data.
MODULES = {
    "ctypes": "ctypes reaches the process's memory",
    "_ctypes": "ctypes reaches the process's memory",
    "cffi": "cffi reaches the process's memory",
    "signal": "signals can stop the grader's processes",
    "importlib": "importlib loads code by name, past the grader's import rules",
    "runpy": "runpy runs files by path",
    "inspect": "inspect reads the grader's frames and source",
    "pickle": "unpickling calls functions chosen by data",
    "marshal": "marshal builds code objects",
    "dill": "unpickling calls functions chosen by data",
    "code": "the code module runs strings",
    "codeop": "the codeop module compiles strings",
    "builtins": "builtins replaces the functions the grader uses",
    "autograder": "the grader's own modules",
    "solutions": "the reference solutions",
}
# Dotted names, as the student's imports resolve them.
NAMES = {
    "torch._C": "torch's C internals switch off the function modes the grader watches with",
    "torch.ops": "torch's operator registry reaches kernels past the grader's check",
    "torch.overrides": "function modes are how the grader watches delegation",
    "torch.utils.cpp_extension": "compiled extensions run outside Python",
    "torch.library": "registering operators changes what torch functions do",
    "sys.meta_path": "the import system is the grader's",
    "sys.path_hooks": "the import system is the grader's",
    "sys.modules": "sys.modules holds the grader's own modules",
    "sys._getframe": "frames hold the grader's state",
    "sys.settrace": "tracing reaches the grader's frames",
    "sys.setprofile": "profiling reaches the grader's frames",
    "os.kill": "signals can stop the grader's processes",
    "os.killpg": "signals can stop the grader's processes",
    "gc.get_objects": "a gc walk reaches the grader's objects",
    "gc.get_referrers": "a gc walk reaches the grader's objects",
    "gc.get_referents": "a gc walk reaches the grader's objects",
    "traceback.walk_stack": "frames hold the grader's state",
    "traceback.walk_tb": "frames hold the grader's state",
    "operator.attrgetter": "attributes by computed name",
    "operator.methodcaller": "methods by computed name",
    "numpy.ctypeslib": "ctypes reaches the process's memory",
    "types.CodeType": "code objects built by hand",
    "types.FunctionType": "functions built from code objects",
}
# Attribute names flagged on any object: Python's and torch's introspection internals.
ATTRIBUTES = {
    "_C", "_refs", "_prims", "_decomp", "_ops", "_overrides", "_pop_mode", "_push_mode", "_python_dispatch",
    "_get_current_function_mode", "_get_current_function_mode_stack", "_len_torch_function_stack",
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl",
    "__globals__", "__code__", "__closure__", "__builtins__", "__subclasses__", "__getattribute__", "__getattr__",
    "__import__", "__loader__", "__spec__", "__bases__", "__base__", "__mro__", "__self__", "__func__",
    "__reduce__", "__reduce_ex__", "__traceback__", "__wrapped__", "__kwdefaults__", "__defaults__",
    "tb_frame", "tb_next", "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "gi_frame", "cr_frame",
    "ag_frame", "co_consts", "func_globals",
}
CALLS = {
    "exec": "code built from strings", "eval": "code built from strings", "compile": "code built from strings",
    "__import__": "imports by computed name", "globals": "the module's namespace by name",
    "breakpoint": "a debugger in the grader",
}
NAMED_BY_STRING = ("getattr", "setattr", "delattr", "hasattr")


def flags(submission):
    """{component id: [reason, ...]} for the components whose code reaches for the grader's internals."""
    owned = {}
    for name, module in submission.owners.items():
        owned.setdefault(module, set()).add(spec.OWNER[name].id)
    found = {}
    for unit in submission.units:
        try:
            tree = ast.parse(unit.code)
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            continue  # code that does not parse never runs
        aliases = _aliases(tree)
        for statement in tree.body:
            name = getattr(statement, "name", None)
            mine = {spec.OWNER[name].id} if name in spec.OWNER and submission.owners.get(name) == unit.module else set()
            # A helper or top-level line may serve any part of its file; a file that defines none, any part.
            components = mine or owned.get(unit.module) or {c.id for c in spec.COMPONENTS}
            for line, reason, delegates in _findings(statement, aliases):
                targets = [c for c in components if delegates is None or any(k in delegates for k in _kernels(c))]
                for component in targets:
                    found.setdefault(component, []).append(f"{unit.label}, line {line}: {reason}")
    return {component: list(dict.fromkeys(reasons)) for component, reasons in found.items()}


def _kernels(component_id):
    return [k.replace("_", "").lower() for k in spec.BY_ID[component_id].forbidden]


def _aliases(tree):
    """Local name -> the dotted module name its import bound (`import torch.nn.functional as F`: F)."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node, aliases):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


def _findings(statement, aliases):
    """(line, reason, delegated kernel or None) for each flagged node of one top-level statement."""
    for node in ast.walk(statement):
        line = getattr(node, "lineno", statement.lineno)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module:
                modules += [f"{node.module}.{a.name}" for a in node.names]
            for module in modules:
                internal = next((part for part in module.split(".") if part in ATTRIBUTES), None)
                reason = MODULES.get(module.split(".")[0]) or _named(module) or (internal and "torch's internals")
                if reason:
                    yield line, f"imports {module} ({reason})", None
                    break
        elif isinstance(node, (ast.Attribute, ast.Name)):
            dotted = _dotted(node, aliases) if isinstance(node, ast.Attribute) else aliases.get(node.id)
            if isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
                yield line, f"uses .{node.attr} (Python's or torch's internals)", None
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__" and _dotted(node.value, aliases):
                yield line, "reads a module's __dict__ (its attributes by computed name)", None
            elif dotted and _named(dotted):
                yield line, f"uses {dotted} ({_named(dotted)})", None
            elif dotted and dotted.startswith("torch.") and not isinstance(getattr(node, "ctx", None), ast.Store):
                yield line, f"uses {dotted}, a torch function its part may not delegate to", dotted.replace("_", "").lower()
            if isinstance(node, ast.Name) and node.id in CALLS and node.id not in aliases:
                yield line, f"calls {node.id} ({CALLS[node.id]})", None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMED_BY_STRING:
            yield from _by_string(node, line, aliases)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
            if _dotted(node.args[0], aliases) or isinstance(node.args[0], ast.Name) and node.args[0].id in aliases:
                yield line, "reads a module's vars() (its attributes by computed name)", None
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            if node.slice.value in ATTRIBUTES or _named(node.slice.value):
                yield line, f"looks up {node.slice.value!r} by name (Python's or torch's internals)", None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "/proc" in node.value:
            yield line, "names /proc (the processes' memory and state)", None


def _by_string(call, line, aliases):
    """getattr and friends: a literal name is judged as the attribute; a computed one on a module or on
    what a call returns (`getattr(__import__(...), ...)`, `getattr(getattr(torch, a), b)`) is flagged."""
    if len(call.args) < 2:
        return
    target, name = call.args[:2]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        if name.value in ATTRIBUTES:
            yield line, f"{call.func.id}(..., {name.value!r}) (Python's or torch's internals)", None
        return
    on_module = _dotted(target, aliases) or isinstance(target, ast.Name) and target.id in aliases
    if on_module or isinstance(target, (ast.Call, ast.Subscript)):
        yield line, f"{call.func.id} on a module with a computed name (an attribute no reader can see)", None


def _named(dotted):
    """The reason a dotted name (or one of its parents) is flagged, if it is."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        reason = NAMES.get(".".join(parts[:end]))
        if reason:
            return reason
    return None
