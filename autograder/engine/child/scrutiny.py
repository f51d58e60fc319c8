"""The static check: what a submission's source reaches for, decided before any of it runs.

It runs in the jail, in a child that parses the submission and never runs it (child.parse), with torch
imported and no student code loaded: there torch is trusted, so an attribute chain is judged by the object
it really reaches (`torch.sys` is the module sys, `functional = torch.nn.functional` makes `functional.x`
torch's x), never by its spelling. Two verdicts come out of it:

- flags: code that reaches around the computation (the interpreter's or the process's internals, threads
  and processes, files and sockets, code built from strings, torch's internals, dunder traffic). Imports are
  judged by an allow-list: torch, numpy, math and the standard library's computing modules, the
  submission's own modules, and other installed libraries whose every attribute chain is resolved like
  torch's. A flagged component scores 0 until an instructor has read the code (--accept-flagged).
- kernels: the lines where a component's own code names a library implementation of its subject (torch's
  attention, normalisation or transformer layers; anything of a transformers model). Naming is not
  delegating: the child's tripwire says whether the kernel ran while graded, and the judge scores 0 only
  then. The tripwire can be blinded only by what the flags catch (other threads, torch's function-mode
  internals, __torch_function__, computed attribute names), so a blinded tripwire is a flagged submission.

A unit the check cannot parse (beyond a plain syntax error, which the child reports with its line) is
never run: see Verdict.unreadable.
"""
import ast
import importlib
import importlib.util
import sys
import types

from autograder.engine.contract import spec

# The standard library's modules a submission may use: the ones that compute. Every other one is flagged.
COMPUTING = frozenset({
    "__future__", "math", "cmath", "typing", "dataclasses", "functools", "itertools", "collections", "copy",
    "warnings", "abc", "enum", "numbers", "operator", "random", "statistics", "string", "re", "textwrap",
    "contextlib", "decimal", "fractions", "heapq", "bisect", "time", "json", "pprint", "types", "keyword",
})
# Why the standard library's other modules are flagged, where a module says more than the default.
REASONS = {
    "sys": "the interpreter's internals", "os": "the process's files, signals and children",
    "gc": "a gc walk reaches the grader's objects", "ctypes": "ctypes reaches the process's memory",
    "_ctypes": "ctypes reaches the process's memory", "threading": "threads escape the grader's watch",
    "_thread": "threads escape the grader's watch", "concurrent": "threads and processes escape the grader's watch",
    "multiprocessing": "processes escape the grader's watch", "subprocess": "processes escape the grader's watch",
    "asyncio": "an event loop's tasks and threads", "socket": "sockets", "signal": "signals can stop the grader's processes",
    "importlib": "importlib loads code by name, past the grader's import rules", "runpy": "runpy runs files by path",
    "inspect": "inspect reads the grader's frames and source", "pickle": "unpickling calls functions chosen by data",
    "marshal": "marshal builds code objects", "code": "the code module runs strings", "codeop": "it compiles strings",
    "builtins": "builtins replaces the functions the grader uses", "io": "files", "pathlib": "files",
    "shutil": "files", "tempfile": "files", "mmap": "shared memory", "traceback": "frames hold the grader's state",
}
OTHERS = "the standard library beyond computing"
# Installed libraries whose import is refused outright, whatever the chain.
REFUSED = {
    "autograder": "the grader's own modules", "solutions": "the reference solutions",
    "cffi": "cffi reaches the process's memory", "dill": "unpickling calls functions chosen by data",
    "cloudpickle": "unpickling calls functions chosen by data", "psutil": "the process's state",
}
# Parts of installed libraries that reach around the computation, by the module an object belongs to.
INTERNALS = {
    "torch._C": "torch's C internals switch off the function modes the grader watches with",
    "torch.ops": "torch's operator registry reaches kernels past the grader's check",
    "torch._ops": "torch's operator registry reaches kernels past the grader's check",
    "torch.overrides": "function modes are how the grader watches delegation",
    "torch.library": "registering operators changes what torch functions do",
    "torch.utils.cpp_extension": "compiled extensions run outside Python",
    "torch.utils._python_dispatch": "dispatch modes are how the grader watches delegation",
    "torch.multiprocessing": "processes escape the grader's watch", "torch.distributed": "processes and sockets",
    "torch.jit": "compiled code runs past the grader's watch", "torch._dynamo": "compiled code runs past the grader's watch",
    "torch.compiler": "compiled code runs past the grader's watch", "torch.hub": "downloads and runs code",
    "numpy.ctypeslib": "ctypes reaches the process's memory",
}
# Functions of installed libraries that reach files or build code, as dotted names resolved in this process.
FUNCTIONS = {
    "torch.compile": "compiled code runs past the grader's watch", "torch.load": "files (and unpickling)",
    "torch.save": "files", "torch.from_file": "files", "numpy.load": "files (and unpickling)", "numpy.save": "files",
    "numpy.savez": "files", "numpy.savez_compressed": "files", "numpy.fromfile": "files", "numpy.memmap": "files",
    "numpy.loadtxt": "files", "numpy.savetxt": "files", "numpy.genfromtxt": "files", "numpy.fromregex": "files",
    "operator.attrgetter": "attributes by computed name", "operator.methodcaller": "methods by computed name",
    "builtins.code": "code objects built by hand", "builtins.function": "functions built from code objects",
    "typing.get_type_hints": "it evaluates strings as code",
}
# Dunder attributes code may read: the ones of ordinary classes. Any other one, and any dunder written, is flagged.
DUNDERS = frozenset({
    "__init__", "__name__", "__qualname__", "__doc__", "__module__", "__call__", "__len__", "__iter__", "__next__",
    "__getitem__", "__setitem__", "__contains__", "__repr__", "__str__", "__eq__", "__hash__", "__post_init__",
    "__enter__", "__exit__", "__version__", "__annotations__", "__add__", "__mul__", "__matmul__", "__neg__",
})
# Attributes flagged on any object, wherever it comes from: torch's and Python's ways into the grader.
ATTRIBUTES = {
    "_C", "_refs", "_prims", "_decomp", "_ops", "_overrides", "_pop_mode", "_push_mode", "_python_dispatch",
    "_get_current_function_mode", "_get_current_function_mode_stack", "_len_torch_function_stack",
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl", "_make_subclass",
    "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "tb_frame", "tb_next", "gi_frame", "cr_frame",
    "ag_frame", "co_consts", "func_globals", "tofile", "from_file",
}
# Methods whose definition hooks into torch's dispatch or Python's object machinery.
HOOKS = {"__torch_function__", "__torch_dispatch__", "__del__", "__getattribute__", "__getattr__", "__init_subclass__"}
CALLS = {
    "exec": "code built from strings", "eval": "code built from strings", "compile": "code built from strings",
    "__import__": "imports by computed name", "globals": "the module's namespace by name",
    "breakpoint": "a debugger in the grader", "open": "files",
}
NAMED_BY_STRING = ("getattr", "setattr", "delattr", "hasattr")
MISSING = object()


class Verdict:
    """What the check found: {component id: ["file, line N: reason", ...]} for flags and for kernels, and
    [(unit, why)] for the units it cannot read."""

    def __init__(self):
        self.flags, self.kernels, self.unreadable = {}, {}, []

    def add(self, table, components, where, text):
        for component in components:
            reasons = table.setdefault(component, [])
            if f"{where}: {text}" not in reasons:
                reasons.append(f"{where}: {text}")


def check(submission):
    """The Verdict for a loader.Submission's units. A unit the check cannot parse beyond a plain syntax
    error (which the child reports with its line) is listed as unreadable: nested past the parser's depth,
    it could run where a raised recursion limit lets the child parse it, so it must never run."""
    owned = {}
    for name, module in submission.owners.items():
        owned.setdefault(module, set()).add(spec.OWNER[name].id)
    own_modules = {unit.module for unit in submission.units}
    verdict, resolver = Verdict(), Resolver(own_modules)
    for unit in submission.units:
        try:
            tree = ast.parse(unit.code)
        except SyntaxError:
            continue
        except (RecursionError, MemoryError, ValueError) as error:
            verdict.unreadable.append((unit, type(error).__name__))
            continue
        aliases = resolver.aliases(tree)
        for statement in tree.body:
            name = getattr(statement, "name", None)
            mine = {spec.OWNER[name].id} if name in spec.OWNER and submission.owners.get(name) == unit.module else set()
            # A helper or top-level line may serve any part of its file; a file that defines none, any part.
            components = mine or owned.get(unit.module) or {c.id for c in spec.COMPONENTS}
            for line, reason, kind in _findings(statement, aliases, resolver):
                where = f"{unit.label}, line {line}"
                if kind is None:
                    verdict.add(verdict.flags, sorted(components), where, reason)
                else:
                    verdict.add(verdict.kernels, sorted(c for c in components if kind in spec.BY_ID[c].kernels), where, reason)
    return verdict


class Resolver:
    """Dotted names -> the objects they reach, in this process, where the libraries are the real ones."""

    def __init__(self, own_modules):
        self.own = own_modules
        self.cache = {}

    def aliases(self, tree):
        """Local name -> dotted name, for imports and for assignments of a resolvable chain, anywhere in the
        unit (`import torch.nn.functional as F`: F; `functional = torch.nn.functional`; `ln = F.layer_norm`)."""
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for _ in range(3):  # chains of assignments: a = torch; b = a.nn; c = b.functional
            for node in ast.walk(tree):
                value = getattr(node, "value", None)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) else []
                dotted = _dotted(value, aliases) if value is not None else None
                for target in targets:
                    if dotted and isinstance(target, ast.Name) and target.id not in aliases:
                        aliases[target.id] = dotted
        return aliases

    def walk(self, dotted):
        """[(dotted prefix, object)] for each prefix of the name that resolves, from its root module on."""
        if dotted not in self.cache:
            self.cache[dotted] = self._walk(dotted)
        return self.cache[dotted]

    def _walk(self, dotted):
        parts = dotted.split(".")
        if parts[0] in self.own or not _importable(parts[0]):
            return []
        try:
            obj = importlib.import_module(parts[0])
        except Exception:  # noqa: BLE001 - a library that does not import reaches nothing
            return []
        found = [(parts[0], obj)]
        for index, part in enumerate(parts[1:], 2):
            prefix = ".".join(parts[:index])
            try:
                nxt = getattr(obj, part, MISSING) if not _dunder(part) else MISSING
            except Exception:  # noqa: BLE001 - a property of the library's that raises reaches nothing
                nxt = MISSING
            if nxt is MISSING and isinstance(obj, types.ModuleType):
                try:
                    nxt = importlib.import_module(prefix)
                except Exception:  # noqa: BLE001
                    nxt = MISSING
            if nxt is MISSING:
                break
            found.append((prefix, nxt))
            obj = nxt
        return found


def _importable(root):
    """Roots worth importing here to resolve: the allowed standard library and installed libraries."""
    if root in sys.stdlib_module_names:
        return root in COMPUTING
    if root in REFUSED or not root.isidentifier() or root.startswith("_"):
        return False
    return importlib.util.find_spec(root) is not None


def _dunder(name):
    return name.startswith("__") and name.endswith("__")


def _dotted(node, aliases):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
        name = node.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            inner = _dotted(node.args[0], aliases)
            return ".".join([inner, name.value, *reversed(parts)]) if inner else None
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


def _module_reason(name):
    """Why a module, by its full name, is flagged; None when it may be used."""
    root = name.split(".")[0]
    if root in REFUSED:
        return REFUSED[root]
    if root in sys.stdlib_module_names and root not in COMPUTING:
        return REASONS.get(root, OTHERS)
    return _internal(name)


def _internal(name):
    """Why a dotted name is one of INTERNALS, or inside one; None otherwise."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in INTERNALS:
            return INTERNALS[".".join(parts[:end])]
    return None


def _judged(dotted, resolver):
    """(reason, kind) for a dotted name, from what it resolves to: a flag (kind None), a kernel (kind the
    delegation it is), or (None, None) when it may be used."""
    parts = dotted.split(".")
    module_reason = _module_reason(dotted) if parts[0] in REFUSED or parts[0] in sys.stdlib_module_names else None
    if module_reason:
        return f"uses {dotted} ({module_reason})", None
    kernel = None
    for prefix, obj in resolver.walk(dotted):
        last = prefix.rsplit(".", 1)[-1]
        if "." in prefix and last.startswith("_") and not _dunder(last):
            return f"uses {prefix} (a library's private internals)", None
        if isinstance(obj, types.ModuleType):
            reason = _module_reason(obj.__name__)
            if reason:
                via = f" through {prefix}" if obj.__name__ != prefix else ""
                return f"reaches {obj.__name__}{via} ({reason})", None
        elif FUNCTIONS.get(_full_name(obj)):
            return f"uses {prefix} ({FUNCTIONS[_full_name(obj)]})", None
        elif reason := _internal(prefix) or _function_of(obj):
            return f"uses {prefix} ({reason})", None
        kernel = _kernel(prefix, obj) or kernel  # the longest chain that is one names it best
    return kernel or (None, None)


def _function_of(obj):
    """Why a function or class re-exported from a flagged standard module is flagged (torch.xyz = os.xyz)."""
    if not isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)):
        return None
    root = (_owner(obj) or "").split(".")[0].lstrip("_")
    return REASONS.get(root) if root not in ("builtins", "functools", "collections", "abc", "io") else None


def _owner(obj):
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else None


def _full_name(obj):
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    name = getattr(obj, "__name__", None)
    module = _owner(obj)
    return f"{module}.{name}" if module and isinstance(name, str) else None


def _kernel(prefix, obj):
    """(reason, kind) when obj is a library implementation a component may not delegate to."""
    full = _full_name(obj) or prefix
    if full.startswith("transformers.") and not _is_configuration(full):
        return f"names {prefix}, part of the transformers library", "transformers"
    if not full.startswith("torch"):
        return None
    key = f"{full}.{prefix}".replace("_", "").lower()
    for kind, patterns in spec.KERNELS.items():
        if any(pattern in key for pattern in patterns):
            return f"names {prefix}, torch's own {kind}", kind
    return None


def _is_configuration(name):
    return ".configuration_" in name or name.endswith("Config")


def _findings(statement, aliases, resolver):
    """(line, reason, kind) for each finding in one top-level statement: kind None for a flag, else the
    delegation a kernel's name would be."""
    inner = set()  # the prefixes of a chain already judged whole (ast.walk meets the outer node first)
    for node in ast.walk(statement):
        line = getattr(node, "lineno", statement.lineno)
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from _import_findings(node, line, resolver)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in HOOKS:
            yield line, f"defines {node.name} (it hooks into torch's dispatch or Python's object machinery)", None
        elif isinstance(node, ast.Attribute):
            yield from _attribute_findings(node, line, aliases, resolver, id(node) not in inner)
        elif isinstance(node, ast.Name):
            if node.id in CALLS and node.id not in aliases:
                yield line, f"uses {node.id} ({CALLS[node.id]})", None
            elif _dunder(node.id) and node.id not in DUNDERS:
                yield line, f"uses {node.id} (Python's or torch's internals)", None
            elif node.id in aliases and isinstance(node.ctx, ast.Load) and id(node) not in inner:
                reason, kind = _judged(aliases[node.id], resolver)
                if reason:
                    yield line, reason, kind
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMED_BY_STRING:
            yield from _by_string(node, line, aliases, resolver)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
            if _dotted(node.args[0], aliases):
                yield line, "reads a module's vars() (its attributes by computed name)", None
        elif isinstance(node, ast.Call) and any(k.arg == "num_workers" for k in node.keywords):
            yield line, "asks for worker processes (num_workers), which escape the grader's watch", None
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            key = node.slice.value
            if key in ATTRIBUTES or _dunder(key) and key not in DUNDERS or key.split(".")[0] in REFUSED or key in INTERNALS:
                yield line, f"looks up {node.slice.value!r} by name (Python's or torch's internals)", None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "/proc" in node.value:
            yield line, "names /proc (the processes' memory and state)", None


def _import_findings(node, line, resolver):
    if isinstance(node, ast.ImportFrom) and node.level:
        return  # the submission's own modules
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if reason := _module_reason(node.module):
            yield line, f"imports {node.module} ({reason})", None
            return
        names = [f"{node.module}.{alias.name}" for alias in node.names]
    for name in names:
        root = name.split(".")[0]
        if root in resolver.own:
            continue
        reason = _module_reason(name)
        if reason:
            yield line, f"imports {name} ({reason})", None
            return
        if root not in sys.stdlib_module_names and not _importable(root):
            continue  # not installed: importing it fails in the child, as it would anywhere
        judged, kind = _judged(name, resolver)
        if judged:
            yield line, judged, kind
            if kind is None:
                return


def _attribute_findings(node, line, aliases, resolver, whole):
    """The attribute's own name, and (for a whole chain, not a prefix of one) what the chain reaches."""
    if node.attr in ATTRIBUTES:
        yield line, f"uses .{node.attr} (Python's or torch's internals)", None
    elif _dunder(node.attr) and (node.attr not in DUNDERS or not isinstance(node.ctx, ast.Load)):
        verb = "reads" if isinstance(node.ctx, ast.Load) else "changes"
        yield line, f"{verb} .{node.attr} (Python's object internals)", None
    dotted = _dotted(node, aliases) if whole else None
    if dotted is None:
        return
    if not isinstance(node.ctx, ast.Load):
        yield line, f"changes {dotted} (it rewrites a library the grader runs on)", None
        return
    reason, kind = _judged(dotted, resolver)
    if reason:
        yield line, reason, kind


def _by_string(call, line, aliases, resolver):
    """getattr and friends: a literal name is judged as the attribute; a computed one on a module or on
    what a call returns (`getattr(__import__(...), ...)`, `getattr(getattr(torch, a), b)`) is flagged, and
    set/delattr on a library whatever the name."""
    if len(call.args) < 2:
        return
    target, name = call.args[:2]
    library = _dotted(target, aliases)
    on_library = library is not None
    if call.func.id in ("setattr", "delattr") and on_library:
        yield line, f"{call.func.id} on a library the grader runs on", None
    elif isinstance(name, ast.Constant) and isinstance(name.value, str):
        if name.value in ATTRIBUTES or _dunder(name.value) and name.value not in DUNDERS:
            yield line, f"{call.func.id}(..., {name.value!r}) (Python's or torch's internals)", None
        elif on_library:
            reason, kind = _judged(f"{library}.{name.value}", resolver)
            if reason:
                yield line, reason, kind
    elif on_library or isinstance(target, (ast.Call, ast.Subscript)):
        yield line, f"{call.func.id} on a module with a computed name (an attribute no reader can see)", None
