"""The static check: what a submission's code reaches for, decided before any of it runs. It denies by default.

It runs in the jail, in a child that parses the submission and never runs it (server.parse), with torch
imported and no student code loaded, so a dotted name is judged by the object it really reaches. Every
name, attribute, import, builtin and base class must be one the policy lends (contract/policy.py, read
against the libraries by allowed.py); anything else is held for an instructor's review. What comes out:

- held: the components whose code needs a held construct, with its file, line and name. Such code never
  runs (server.Server skips it) until an instructor accepts it (--accept-flagged).
- skipped: top-level statements that are held or that need a held one, and that no graded name needs (a
  plot, `import pandas`, a progress bar): they do not run, cost nothing, and are each noted in one line.
- kernels: where a component's own code names a library implementation of its subject (torch's attention,
  its normalisation, a transformers layer). Naming is not delegating: the child's tripwire says whether it ran.

What a graded name needs is read from the code: the top-level statements that bind the names it loads,
transitively, across cells and the submission's own modules. A unit the check cannot parse (beyond a plain
syntax error, which the child reports with its line) is never run: see Verdict.unreadable.
"""

import ast
import builtins
import string
import types
from dataclasses import dataclass, field

from autograder.engine.child import allowed
from autograder.engine.contract import policy, spec

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MAX_NOTES = 20


@dataclass
class Statement:
    unit: int  # its unit's index in the submission
    label: str
    node: ast.stmt
    module: str
    findings: list = field(default_factory=list)  # (line, text, kind): kind None for a held construct, else a kernel
    loads: set = field(default_factory=set)  # (module, name) pairs it reads from module scope
    binds: set = field(default_factory=set)  # names it binds in its module's scope
    stars: list = field(default_factory=list)  # own modules it imports * from
    never: bool = False  # `if __name__ == "__main__":`, which grading never runs

    @property
    def where(self):
        return (self.node.lineno, self.node.col_offset)

    def line(self, line):
        return f"{self.label}, line {line}"


@dataclass
class Verdict:
    """What the check found. held and kernels: {component id: ["FILE, line N: text", ...]}; skipped:
    {unit index: [[line, column], ...]} of top-level statements that do not run; missing: {name: why it is
    not defined}, for the message of code that needs it anyway; notes; unreadable: [(unit, why)]."""

    held: dict = field(default_factory=dict)
    kernels: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)


def check(submission):
    """The Verdict for a loader.Submission's units."""
    verdict = Verdict()
    statements, trees = [], {}
    for index, unit in enumerate(submission.units):
        try:
            trees[index] = ast.parse(unit.code)
        except SyntaxError:
            continue
        except (RecursionError, MemoryError, ValueError) as error:
            # Nested past the parser's depth, it could run where a raised recursion limit lets the child parse it.
            verdict.unreadable.append((unit, type(error).__name__))
    # The contract's own modules are the course's files, named by component: the reference stands in for a missing one.
    own_modules = {unit.module for unit in submission.units} | set(spec.BY_ID)
    context = Context(own_modules, trees, submission.units)
    for index, tree in trees.items():
        unit = submission.units[index]
        for node in tree.body:
            statement = Statement(index, unit.label, node, unit.module)
            Scan(context, statement).run()
            statements.append(statement)
    _decide(verdict, statements, submission.owners)
    return verdict


class Context:
    """What the whole submission tells about each name: its own modules, classes and attribute names, and
    each module's aliases (a local name for a dotted library name: `import torch.nn.functional as F`)."""

    def __init__(self, own_modules, trees, units):
        self.own_modules = own_modules
        self.classes, self.attributes, self.strings, self.aliases, self.bound = set(), set(), set(), {}, {}
        for index, tree in trees.items():
            module = units[index].module
            aliases = self.aliases.setdefault(module, {})
            bound = self.bound.setdefault(module, set())
            for node in tree.body:
                bound |= module_bindings(node)
            for node in ast.walk(tree):
                self._learn(node, aliases)
        stars = {
            (units[index].module, node.module)
            for index, tree in trees.items()
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and any(a.name == "*" for a in node.names)
            and (node.module or "").split(".")[0] in own_modules
        }
        for _ in range(3):  # chains of aliases (a = torch; b = a.nn; c = b.functional), and `%run` star imports
            for module, source in stars:
                for name, dotted in self.aliases.get(source, {}).items():
                    if name not in self.bound.get(module, ()):
                        self.aliases.setdefault(module, {}).setdefault(name, set()).update(dotted)
            for index, tree in trees.items():
                aliases = self.aliases[units[index].module]
                for node in ast.walk(tree):
                    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                        dotted = self.dotted(node.value, aliases)
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for target in targets:
                            if dotted and isinstance(target, ast.Name):
                                aliases.setdefault(target.id, set()).add(dotted)

    def _learn(self, node, aliases):
        if isinstance(node, ast.ClassDef):
            self.classes.add(node.name)
            for item in node.body:
                self.attributes |= module_bindings(item)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            self.attributes.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.attributes.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            self.strings.add(node.value)  # a name setattr(self, name, ...) may give self
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                aliases.setdefault(local, set()).add(alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    aliases.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")

    def dotted(self, node, aliases):
        """The dotted names an attribute chain on an alias spells out (`F.softmax` -> torch.nn.functional.softmax)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in aliases:
            return next(iter(sorted(".".join([base, *reversed(parts)]) for base in aliases[node.id])))
        return None


def changed_names(node):
    """The module-scope names whose objects a top-level statement changes (`LayerNorm.forward = f`,
    `registry[key] = f`, `registry.append(f)`): what loads such a name needs the statement as it needs the
    name's definition."""
    names = set()
    for current in _own_statements(node):
        call = current.value if isinstance(current, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
        ):
            names.add(call.func.value.id)  # registry.append(f), table.update(...)
        for target in getattr(current, "targets", [getattr(current, "target", None)]):
            while isinstance(target, (ast.Attribute, ast.Subscript)):
                target = target.value
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def module_bindings(node):
    """The names a top-level statement binds in its module: what it assigns, defines or imports, outside the
    functions, classes and comprehensions it holds, and what those declare global."""
    names = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(current.name)
            names |= {n for g in ast.walk(current) if isinstance(g, ast.Global) for n in g.names}
            continue
        if isinstance(current, (ast.Lambda, *COMPREHENSIONS)):
            continue
        if isinstance(current, ast.Name) and not isinstance(current.ctx, ast.Load):
            names.add(current.id)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in current.names if a.name != "*"}
        elif isinstance(current, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and getattr(current, "name", None):
            names.add(current.name)
        stack.extend(ast.iter_child_nodes(current))
    return names


class Scan(ast.NodeVisitor):
    """One top-level statement's findings and the module-scope names it reads, scope by scope."""

    def __init__(self, context, statement):
        self.context = context
        self.statement = statement
        self.aliases = context.aliases.get(statement.module, {})
        self.bound = context.bound.get(statement.module, set())
        self.scopes = []  # the local names of each enclosing function, lambda or comprehension; None for a class
        self.judged = set()  # ids of nodes already judged as part of a larger chain or call
        self.as_alias = set()  # ids of values assigned whole to a name: an alias, not a module used as a value

    def run(self):
        if _never_runs(self.statement.node):
            self.statement.never = True
            return
        # A library's module changed is held wherever it is: only the submission's own objects are bound so.
        self.statement.binds = module_bindings(self.statement.node) | (
            changed_names(self.statement.node) - set(self.aliases)
        )
        self.visit(self.statement.node)

    def flag(self, node, text, kind=None):
        line = getattr(node, "lineno", self.statement.node.lineno)
        finding = (line, text, kind)
        if finding not in self.statement.findings:
            self.statement.findings.append(finding)

    def local(self, name):
        """True when name is a local of an enclosing function (where Python never falls back to builtins)."""
        return any(scope is not None and name in scope for scope in self.scopes)

    # Scopes

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._arguments(node.args)
        if node.returns:
            self.visit(node.returns)
        if _dunder(node.name) and node.name not in policy.DUNDERS_DEFINED:
            self.flag(node, f"defines {node.name} (it hooks into Python's object machinery or torch's dispatch)")
        self._scope(node, node.body, _locals(node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._arguments(node.args)
        self._scope(node, [node.body], _locals(node))

    def _arguments(self, arguments):
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                self.visit(default)
        for argument in [
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            arguments.vararg,
            arguments.kwarg,
        ]:
            if argument is not None and argument.annotation is not None:
                self.visit(argument.annotation)

    def _scope(self, node, body, names):
        self.scopes.append(names)
        for item in body:
            self.visit(item)
        self.scopes.pop()

    def _comprehension(self, node):
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.scopes.append(names)
        for generator in node.generators:
            self.visit(generator)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                self.visit(getattr(node, part))
        self.scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_ClassDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        for base in node.bases:
            self._base(base)
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                dotted = self.context.dotted(keyword.value, self.aliases)
                if dotted not in policy.METACLASSES:
                    self.flag(keyword.value, "sets a metaclass (it runs code as classes are made)")
            self.visit(keyword.value)
        self.scopes.append(None)
        for item in node.body:
            self.visit(item)
        self.scopes.pop()

    def _base(self, base):
        """A base class must be the submission's own class, a builtin type of the policy, or a library class
        the policy lends that does not hook into torch's dispatch (no subclass of torch.Tensor)."""
        self.visit(base)
        target = base.value if isinstance(base, ast.Subscript) else base
        if (
            isinstance(target, ast.Name)
            and not self.local(target.id)
            and target.id not in self.aliases
            and (target.id in self.context.classes or target.id in policy.BUILTINS)
        ):
            return
        dotted = self.context.dotted(target, self.aliases)
        if dotted is None:
            self.flag(base, "derives from a base class the check cannot name")
            return
        obj = _resolve(dotted)
        reason = allowed.base_reason(obj) if obj is not allowed.MISSING else None
        if reason:
            self.flag(base, f"derives from {dotted} ({reason})")

    # Names, attributes and calls

    def visit_Name(self, node):
        name = node.id
        if self.local(name) or id(node) in self.judged:
            return
        if isinstance(node.ctx, ast.Load):
            self.statement.loads.add((self.statement.module, name))
        if _dunder(name):
            if name not in policy.DUNDERS_READ:
                self.flag(node, f"uses {name} (Python's internals)")
        elif name in self.aliases and isinstance(node.ctx, ast.Load):
            for dotted in sorted(self.aliases[name]):
                self._chain(node, dotted, whole=id(node) in self.as_alias)
        elif name in self.bound or not hasattr(builtins, name):
            return  # the module's own (where it falls back to a builtin, the child's builtins are the policy's)
        elif name in policy.BY_NAME or name in policy.ONE_ARGUMENT:
            self.flag(node, f"uses {name} as a value (attributes by computed name, or classes built past the check)")
        elif name not in policy.BUILTINS:
            self.flag(node, f"uses the builtin {name} ({policy.OUTSIDE})")

    def visit_Attribute(self, node):
        if id(node) in self.judged:
            return
        parts, base = [], node
        while isinstance(base, ast.Attribute):
            self.judged.add(id(base))
            parts.append(base.attr)
            base = base.value
        parts.reverse()
        if isinstance(base, ast.Name) and not self.local(base.id) and base.id in self.aliases:
            self.judged.add(id(base))
            self.statement.loads.add((self.statement.module, base.id))
            for dotted in sorted(self.aliases[base.id]):
                self._chain(
                    node,
                    ".".join([dotted, *parts]),
                    whole=id(node) in self.as_alias,
                    store=not isinstance(node.ctx, ast.Load),
                )
            return
        self.visit(base)
        on_self = isinstance(base, ast.Name) and base.id in policy.OWN_RECEIVERS
        for index, part in enumerate(parts):
            first = on_self and index == 0
            own = self.context.attributes | self.context.strings if first else self.context.attributes
            reason = allowed.value_reason(part, own, on_self=first)
            if reason:
                self.flag(node, f"uses .{part} ({reason})")
            elif _dunder(part) and not isinstance(node.ctx, ast.Load):
                self.flag(node, f"changes .{part} (Python's object internals)")

    def _chain(self, node, dotted, whole=False, store=False):
        """Judge a dotted name that starts at an import: a library's by the policy, an own module's by its names."""
        root = dotted.split(".")[0]
        if root in self.context.own_modules:
            self._own_chain(node, dotted, whole, store)
            return
        if store:
            self.flag(node, f"changes {dotted} (it rewrites a library the grader runs on)")
            return
        reason, kind, obj = judge(dotted, self.context.attributes)
        if reason:
            self.flag(node, reason, kind)
        elif isinstance(obj, types.ModuleType) and not whole:
            self.flag(node, f"uses the module {dotted} as a value (what it lends could no longer be checked)")

    def _own_chain(self, node, dotted, whole, store):
        module, *parts = dotted.split(".")
        if not parts:
            if not whole:
                self.flag(node, f"uses its own module {module} as a value")
            return
        self.statement.loads.add((module, parts[0]))
        inner = self.context.aliases.get(module, {}).get(parts[0])
        if inner:
            for target in sorted(inner):
                self._chain(node, ".".join([target, *parts[1:]]), whole, store)
            return
        for part in parts[1:]:
            reason = allowed.value_reason(part, self.context.attributes)
            if reason:
                self.flag(node, f"uses .{part} ({reason})")

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and not self.local(func.id) and func.id not in self.bound:
            if func.id in policy.BY_NAME:
                self.judged.add(id(func))
                self.statement.loads.add((self.statement.module, func.id))
                self._by_name(node, func.id)
            elif func.id in policy.ONE_ARGUMENT:
                self.judged.add(id(func))
                if len(node.args) != 1 or node.keywords:
                    self.flag(node, f"calls {func.id} with other than one argument (it builds a class past the check)")
        self.generic_visit(node)

    def _by_name(self, call, name):
        """getattr(x, "name"), hasattr, setattr(self, ...), delattr(self, ...): a literal name is judged as the
        attribute; a computed one is checked where it runs (allowed.students_builtins), never on a library."""
        if len(call.args) < 2:
            return
        target, attribute = call.args[:2]
        if name in policy.ON_SELF and not (isinstance(target, ast.Name) and target.id == "self"):
            self.flag(call, f"calls {name} on something other than self (it would change another object)")
        literal = isinstance(attribute, ast.Constant) and isinstance(attribute.value, str)
        dotted = self.context.dotted(target, self.aliases)
        if dotted and dotted.split(".")[0] not in self.context.own_modules:
            if not literal:
                self.flag(call, f"{name} on {dotted} with a computed name (an attribute no reader can see)")
            elif name in policy.ON_SELF:
                self.flag(call, f"{name} on {dotted} (it rewrites a library the grader runs on)")
            else:
                reason, kind, _ = judge(f"{dotted}.{attribute.value}", self.context.attributes)
                if reason:
                    self.flag(call, reason, kind)
        elif literal:
            on_self = isinstance(target, ast.Name) and target.id in policy.OWN_RECEIVERS
            own = (
                self.context.attributes | self.context.strings | {attribute.value}
                if on_self
                else self.context.attributes
            )
            reason = allowed.value_reason(attribute.value, own, on_self=on_self)
            if reason or (name in policy.ON_SELF and _dunder(attribute.value)):
                self.flag(call, f"{name}(..., {attribute.value!r}) ({reason or 'Python object internals'})")

    def visit_Assign(self, node):
        # An alias is a name in a module or function; in a class body it is an attribute, and a module there a value.
        in_class = bool(self.scopes) and self.scopes[-1] is None
        if (
            isinstance(node.value, (ast.Name, ast.Attribute))
            and all(isinstance(t, ast.Name) for t in node.targets)
            and not in_class
        ):
            self.as_alias.add(id(node.value))
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        in_class = bool(self.scopes) and self.scopes[-1] is None
        if isinstance(node.value, (ast.Name, ast.Attribute)) and isinstance(node.target, ast.Name) and not in_class:
            self.as_alias.add(id(node.value))
        self.generic_visit(node)

    def visit_keyword(self, node):
        if node.arg and _dunder(node.arg) and node.arg not in policy.DUNDERS_READ:
            self.flag(node.value, f"passes {node.arg}= (a name Python and numpy read an object's internals by)")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and _dunder(node.value) and node.value not in policy.DUNDERS_READ | {"__main__"}:
            self.flag(node, f"names {node.value} in a string (a name Python and numpy read an object's internals by)")
        if isinstance(node.value, str) and "{" in node.value and "_" in node.value:
            for field_name in _format_fields(node.value):
                if any(part.startswith("_") for part in field_name.replace("[", ".").split(".")[1:]):
                    self.flag(node, f"a format string that reads {{{field_name}}} (attributes by a name in text)")

    # Imports

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.split(".")[0] in self.context.own_modules:
                continue
            self._module(node, alias.name)

    def visit_ImportFrom(self, node):
        if node.level:
            return  # the submission's own modules
        root = (node.module or "").split(".")[0]
        if root in self.context.own_modules:
            for alias in node.names:
                if alias.name == "*":
                    self.statement.stars.append(node.module)
                else:
                    self.statement.loads.add((node.module, alias.name))
            return
        if not self._module(node, node.module):
            return
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, f"imports * from {node.module} (what it binds could no longer be checked)")
            else:
                reason, kind, _ = judge(f"{node.module}.{alias.name}", self.context.attributes)
                if reason:
                    self.flag(node, reason.replace("uses", "imports", 1), kind)

    def _module(self, node, name):
        """True where the module may be imported (it is on the list); else flags the import."""
        if allowed.module_rule(name) is None:
            self.flag(node, f"imports {name} ({allowed.outside(name)})")
            return False
        reason, kind, _ = judge(name, self.context.attributes)
        if reason:
            self.flag(node, reason.replace("uses", "imports", 1), kind)
            return kind is not None
        return True


def _never_runs(node):
    """`if __name__ == "__main__":` never runs in grading, where a module is never __main__."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _locals(function):
    """The names local to a function or lambda: its parameters and what its own body binds, less what it
    imports (a module imported inside a function is judged as the import it is)."""
    arguments = function.args
    names = {
        a.arg
        for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        if a is not None
    }
    body = function.body if isinstance(function.body, list) else [function.body]
    declared = {
        n for node in body for g in ast.walk(node) if isinstance(g, (ast.Global, ast.Nonlocal)) for n in g.names
    }
    imported = set()
    for node in body:
        names |= module_bindings(node)
        imported |= {
            (a.asname or a.name).split(".")[0]
            for n in _own_statements(node)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
    return names - declared - imported


def _own_statements(node):
    """node and the nodes under it, but not inside the functions and classes it defines."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(
            c
            for c in ast.iter_child_nodes(current)
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        )


def _dunder(name):
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _format_fields(text):
    try:
        return [name for _, name, _, _ in string.Formatter().parse(text) if name]
    except (ValueError, IndexError):
        return []


def _resolve(dotted):
    """The object a dotted library name reaches, or allowed.MISSING."""
    parts = dotted.split(".")
    obj = allowed.imported(parts[0])
    if obj is None:
        return allowed.MISSING
    for part in parts[1:]:
        try:
            obj = getattr(obj, part, allowed.MISSING)
        except Exception:  # noqa: BLE001 - a library's property that raises reaches nothing
            return allowed.MISSING
        if obj is allowed.MISSING:
            return obj
    return obj


def judge(dotted, own_attributes):
    """(reason, kind, object) for a dotted library name: a held construct (kind None), a kernel (kind its
    delegation), or (None, None, object) where the policy lends it."""
    parts = dotted.split(".")
    if allowed.module_rule(parts[0]) is None:
        return f"uses {dotted} ({allowed.outside(parts[0])})", None, None
    obj = allowed.imported(parts[0])
    if obj is None:
        return None, None, None  # not installed: importing it fails in the child, as it would anywhere
    found = None
    for end in range(2, len(parts) + 1):
        prefix, part = ".".join(parts[:end]), parts[end - 1]
        if isinstance(obj, types.ModuleType):
            nxt, reason = allowed.lent(obj.__name__, part)
        else:
            reason = allowed.value_reason(part, own_attributes)
            try:
                nxt = getattr(obj, part, allowed.MISSING)
            except Exception:  # noqa: BLE001 - a library's property that raises reaches nothing
                nxt = allowed.MISSING
        if reason:
            return f"uses {prefix} ({reason})", None, None
        if nxt is allowed.MISSING:
            return None, None, None
        found = allowed.kernel(prefix, nxt) or found  # the longest chain that is one names it best
        obj = nxt
    if found:
        return found[0], found[1], obj
    return None, None, obj


def _decide(verdict, statements, owners):
    """From each statement's findings and what each graded name needs: which components are held, which
    statements do not run (with a note for each that a student would miss), and which names that leaves undefined."""
    binders, stars = {}, {}
    for statement in statements:
        for name in statement.binds:
            binders.setdefault((statement.module, name), []).append(statement)
        for module in statement.stars:
            stars.setdefault(statement.module, set()).add(module)

    def bound_by(module, name):
        return _bound_by(module, name, binders, stars, set())

    def needs_for(component):
        # While a component is graded, every other component's names are the reference's (binding.py): what
        # the student wrote for those is not what this one runs, and cannot hold it.
        def needs(statement):
            return [
                found
                for module, name in statement.loads
                if spec.OWNER.get(name, component) is component
                for found in bound_by(module, name)
            ]

        return needs

    closures = {}
    for component in spec.COMPONENTS:
        roots = [s for name in component.names if name in owners for s in binders.get((owners[name], name), [])]
        closures[component.id] = _closure(roots, needs_for(component))
        for statement in closures[component.id]:
            for line, text, kind in statement.findings:
                if kind is None:
                    _add(verdict.held, component.id, f"{statement.line(line)}: {text}")
                elif kind in component.kernels:
                    _add(verdict.kernels, component.id, f"{statement.line(line)}: {text}")
    needed = {id(s) for closure in closures.values() for s in closure}
    running = {id(s) for c, closure in closures.items() if c not in verdict.held for s in closure}
    reasons, skipped = {}, []  # reasons: {statement id: why it is not run}, for the statements nothing graded needs
    for statement in statements:
        outside = next(((line, text) for line, text, kind in statement.findings if kind is None), None)
        if statement.never or (outside is None and (id(statement) in running or id(statement) not in needed)):
            skipped += [statement] if statement.never else []
            continue
        skipped.append(statement)  # held, or needed by a held component alone
        if outside and id(statement) not in needed:
            reasons[id(statement)] = f"line {outside[0]} {outside[1]}"
    gone = {id(s) for s in skipped}
    changed = True
    while changed:  # what needs only statements that do not run does not run either
        changed = False
        for statement in statements:
            if id(statement) in gone or id(statement) in running:
                continue
            lost = [
                name
                for module, name in sorted(statement.loads)
                if (found := bound_by(module, name)) and all(id(s) in gone for s in found)
            ]
            if lost:
                skipped.append(statement)
                gone.add(id(statement))
                changed = True
                reasons[id(statement)] = f"line {statement.node.lineno} needs {lost[0]}, which was not run"
    for statement in skipped:
        verdict.skipped.setdefault(statement.unit, []).append(list(statement.where))
        why = next(
            (f"{statement.line(line)} {text}" for line, text, kind in statement.findings if kind is None),
            f"{statement.line(statement.node.lineno)} was not run",
        )
        for name in module_bindings(statement.node):
            verdict.missing.setdefault(name, why)
    verdict.notes = _notes(statements, reasons)


def _notes(statements, reasons):
    """One line per cell or file that has statements nothing graded needs and that did not run: how many,
    and the first one's reason (the rest of a plot's cell follows from its import)."""
    by_unit = {}
    for statement in statements:
        if id(statement) in reasons:
            by_unit.setdefault(statement.label, []).append(reasons[id(statement)])
    notes = [
        f"{label}: {len(why)} statement{'s' if len(why) > 1 else ''} not run, since nothing graded needs "
        f"{'them' if len(why) > 1 else 'it'}: {why[0]}"
        for label, why in by_unit.items()
    ]
    return notes[:MAX_NOTES] + (
        [f"and {len(notes) - MAX_NOTES} more cells or files with statements not run"] if len(notes) > MAX_NOTES else []
    )


def _bound_by(module, name, binders, stars, seen):
    """The statements that bind name in module: directly, or through an own module's `import *`."""
    if module in seen:
        return []
    seen.add(module)
    found = list(binders.get((module, name), []))
    for source in sorted(stars.get(module, ())):
        found += _bound_by(source, name, binders, stars, seen)
    return found


def _closure(roots, needs):
    seen, stack = {}, list(roots)
    while stack:
        statement = stack.pop()
        if id(statement) not in seen:
            seen[id(statement)] = statement
            stack.extend(needs(statement))
    return list(seen.values())


def _add(table, component, text):
    reasons = table.setdefault(component, [])
    if text not in reasons:
        reasons.append(text)
