"""The static check's reading of one top-level statement (scrutiny.py): a visitor that judges, scope by scope,
every name, attribute chain, call, import, builtin and base class the statement's code reaches for against the
policy (contract/policy/, as allowed.py holds it against the live libraries), records what it finds, and
notes the module-scope names the statement reads and binds.
"""

from __future__ import annotations

import ast
import builtins
import string
import types
from typing import TYPE_CHECKING

from autograder.engine.child import allowed, names
from autograder.engine.contract import policy

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from autograder.engine.child.names import Context
    from autograder.engine.child.scrutiny import Statement


class Scan(ast.NodeVisitor):
    """One top-level statement's findings and the module-scope names it reads, scope by scope."""

    def __init__(self, context: Context, statement: Statement) -> None:
        self.context = context
        self.statement = statement
        self.aliases = context.aliases.get(statement.module, {})
        self.bound = context.bound.get(statement.module, set())
        # the local names of each enclosing function, lambda or comprehension; None for a class
        self.scopes: list[set[str] | None] = []
        self.judged: set[int] = set()  # ids of nodes already judged as part of a larger chain or call
        self.as_alias: set[int] = (
            set()
        )  # ids of values assigned whole to a name: an alias, not a module used as a value

    def run(self) -> None:
        if names.never_runs(self.statement.node):
            self.statement.never = True
            return
        # A library's module changed is held wherever it is: only the submission's own objects are bound so.
        self.statement.binds = names.module_bindings(self.statement.node) | (
            names.changed_names(self.statement.node) - set(self.aliases)
        )
        self.visit(self.statement.node)

    def flag(self, node: ast.AST, text: str, kind: str | None = None) -> None:
        line = getattr(node, "lineno", self.statement.node.lineno)
        finding = (line, text, kind)
        if finding not in self.statement.findings:
            self.statement.findings.append(finding)

    def local(self, name: str) -> bool:
        """True when name is a local of an enclosing function (where Python never falls back to builtins)."""
        return any(scope is not None and name in scope for scope in self.scopes)

    # Scopes

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._arguments(node.args)
        if _dunder(node.name) and node.name not in policy.DUNDERS_DEFINED:
            self.flag(node, f"defines {node.name} (it hooks into Python's object machinery or torch's dispatch)")
        self._scope(node, node.body, names.local_names(node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._arguments(node.args)
        self._scope(node, [node.body], names.local_names(node))

    def _arguments(self, arguments: ast.arguments) -> None:
        # Annotations are not read: the child compiles student code with postponed annotations, as text never evaluated.
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                self.visit(default)

    def _scope(self, node: ast.AST, body: list[ast.stmt] | list[ast.expr], scope: set[str]) -> None:
        self.scopes.append(scope)
        for item in body:
            self.visit(item)
        self.scopes.pop()

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        targets = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.scopes.append(targets)
        for generator in node.generators:
            self.visit(generator)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                self.visit(getattr(node, part))
        self.scopes.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
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
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not self._reached(item.name):
                self._unreached_method(node, item)
            else:
                self.visit(item)
        self.scopes.pop()

    def _reached(self, method: str) -> bool:
        """Whether code may call a method: by its name, written anywhere in the submission, or as a library calls
        it (a dunder, a name of the values a course holds: forward, extra_repr, train). Any other is called by a
        computed name alone, which finds the body the child put in its place (runtime.SourceImporter)."""
        return _dunder(method) or method in self.context.referenced or method in allowed.value_attributes()

    def _unreached_method(self, cls: ast.ClassDef, method: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A method nothing calls by name: what its body uses is judged apart, and a held construct in it costs
        nothing (noted). Its body then never runs: the child replaces it with a raise. Its decorators and
        defaults run as the class is made, and are judged as any code."""
        for decorator in method.decorator_list:
            self.visit(decorator)
        self._arguments(method.args)
        outer = (self.statement.findings, self.statement.loads)
        self.statement.findings, self.statement.loads = [], set()
        self._scope(method, method.body, names.local_names(method))
        found, loads = self.statement.findings, self.statement.loads
        self.statement.findings, self.statement.loads = outer
        held = [(line, text) for line, text, kind in found if kind is None]
        if not held:
            self.statement.findings += [f for f in found if f not in self.statement.findings]
            self.statement.loads |= loads
            return
        self.statement.stubs.append((method.lineno, method.col_offset))
        self.statement.noted.append(
            f"line {held[0][0]}: {cls.name}.{method.name} does not run, since no code calls it by name, and it "
            f"{held[0][1]}"
        )

    def _base(self, base: ast.expr) -> None:
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
        obj = allowed.resolve(dotted)
        reason = allowed.base_reason(obj) if obj is not allowed.MISSING else None
        if reason:
            self.flag(base, f"derives from {dotted} ({reason})")

    # Names, attributes and calls

    def visit_Name(self, node: ast.Name) -> None:
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

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if id(node) in self.judged:
            return
        parts: list[str] = []
        base: ast.expr = node
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
        literal = isinstance(base, ast.Constant) and isinstance(base.value, str)
        for index, part in enumerate(parts):
            if part in policy.FORMATTERS and not (literal and index == 0):
                self.flag(node, f"uses .{part} on a string built at run time (its fields read attributes by name)")
            first = on_self and index == 0
            own = self.context.attributes | self.context.strings if first else self.context.attributes
            reason = allowed.value_reason(part, own, on_self=first)
            if reason:
                self.flag(node, f"uses .{part} ({reason})")
            elif _dunder(part) and not isinstance(node.ctx, ast.Load):
                self.flag(node, f"changes .{part} (Python's object internals)")

    def _chain(self, node: ast.AST, dotted: str, whole: bool = False, store: bool = False) -> None:
        """Judge a dotted name that starts at an import: a library's by the policy, an own module's by its names."""
        root = dotted.split(".")[0]
        if root in self.context.own_modules:
            self._own_chain(node, dotted, whole, store)
            return
        if store:
            self.flag(node, f"changes {dotted} (it rewrites a library the grader runs on)")
            return
        reason, kind, obj = allowed.judge(dotted, self.context.attributes)
        if reason:
            self.flag(node, reason, kind)
        elif isinstance(obj, types.ModuleType) and not whole:
            self.flag(node, f"uses the module {dotted} as a value (what it lends could no longer be checked)")

    def _own_chain(self, node: ast.AST, dotted: str, whole: bool, store: bool) -> None:
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

    def visit_Call(self, node: ast.Call) -> None:
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

    def _by_name(self, call: ast.Call, name: str) -> None:
        """getattr(x, "name"), hasattr, setattr(self, ...), delattr(self, ...): a literal name is judged as the
        attribute; a computed one is checked where it runs (allowed.students_builtins), never on a library."""
        if len(call.args) < 2:
            return
        target, attribute = call.args[:2]
        if name in policy.ON_SELF and not (isinstance(target, ast.Name) and target.id == "self"):
            self.flag(call, f"calls {name} on something other than self (it would change another object)")
        given = attribute.value if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str) else None
        if given in policy.FORMATTERS:
            self.flag(call, f"{name}(..., {given!r}) (a string's fields read attributes by name)")
        dotted = self.context.dotted(target, self.aliases)
        if dotted and dotted.split(".")[0] not in self.context.own_modules:
            if given is None:
                self.flag(call, f"{name} on {dotted} with a computed name (an attribute no reader can see)")
            elif name in policy.ON_SELF:
                self.flag(call, f"{name} on {dotted} (it rewrites a library the grader runs on)")
            else:
                reason, kind, _ = allowed.judge(f"{dotted}.{given}", self.context.attributes)
                if reason:
                    self.flag(call, reason, kind)
        elif given is not None:
            on_self = isinstance(target, ast.Name) and target.id in policy.OWN_RECEIVERS
            own = self.context.attributes | self.context.strings | {given} if on_self else self.context.attributes
            # hasattr(config, "embedding_size") tells a bool, never the value: any public name may be asked after.
            own = own | {given} if name == "hasattr" else own
            reason = allowed.value_reason(given, own, on_self=on_self)
            if reason or (name in policy.ON_SELF and _dunder(given)):
                self.flag(call, f"{name}(..., {given!r}) ({reason or 'Python object internals'})")

    def visit_Assign(self, node: ast.Assign) -> None:
        # An alias is a name in a module or function; in a class body it is an attribute, and a module there a value.
        in_class = bool(self.scopes) and self.scopes[-1] is None
        if (
            isinstance(node.value, (ast.Name, ast.Attribute))
            and all(isinstance(t, ast.Name) for t in node.targets)
            and not in_class
        ):
            self.as_alias.add(id(node.value))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        in_class = bool(self.scopes) and self.scopes[-1] is None
        if isinstance(node.value, (ast.Name, ast.Attribute)) and isinstance(node.target, ast.Name) and not in_class:
            self.as_alias.add(id(node.value))
        self.visit(node.target)  # the annotation is text, never evaluated (see _arguments)
        if node.value is not None:
            self.visit(node.value)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg and _dunder(node.arg) and node.arg not in policy.DUNDERS_READ:
            self.flag(node.value, f"passes {node.arg}= (a name Python and numpy read an object's internals by)")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _dunder(node.value) and node.value not in policy.DUNDERS_READ | {"__main__"}:
            self.flag(node, f"names {node.value} in a string (a name Python and numpy read an object's internals by)")
        if isinstance(node.value, str) and "{" in node.value:
            for field_name in _format_fields(node.value):
                if any(map(_internal, field_name.replace("[", ".").split(".")[1:])):
                    self.flag(node, f"a format string that reads {{{field_name}}} (attributes by a name in text)")

    # Imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root in self.context.own_modules:
                continue
            # `import torch.utils.checkpoint` binds torch: the child imports the sub-module only where the list has
            # it (allowed.students_builtins), and code that reads it through torch is judged where it does.
            if (
                alias.asname is None
                and root != alias.name
                and allowed.module_rule(root) is not None
                and allowed.module_rule(alias.name) is None
            ):
                why = allowed.outside(alias.name)
                self.statement.noted.append(f"line {node.lineno}: {alias.name} was not imported ({why}); {root} was")
                continue
            self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            return  # the submission's own modules
        module = node.module or ""  # always there where the import is not relative
        if module.split(".")[0] in self.context.own_modules:
            for alias in node.names:
                if alias.name == "*":
                    self.statement.stars.append(module)
                else:
                    self.statement.loads.add((module, alias.name))
            return
        if not self._module(node, module):
            return
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, f"imports * from {module} (what it binds could no longer be checked)")
            else:
                reason, kind, _ = allowed.judge(f"{module}.{alias.name}", self.context.attributes)
                if reason:
                    self.flag(node, reason.replace("uses", "imports", 1), kind)

    def _module(self, node: ast.AST, name: str) -> bool:
        """True where the module may be imported (it is on the list); else flags the import."""
        if allowed.module_rule(name) is None:
            self.flag(node, f"imports {name} ({allowed.outside(name)})")
            return False
        reason, kind, _ = allowed.judge(name, self.context.attributes)
        if reason:
            self.flag(node, reason.replace("uses", "imports", 1), kind)
            return kind is not None
        return True


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _internal(part: str) -> bool:
    """Whether a format field's attribute or index reads the interpreter's internals: a private or dunder name, or a
    frame's, code object's or function's (co_code, f_back, cell_contents), which lead to code."""
    part = part.rstrip("]")
    return part.startswith("_") or part in allowed.interpreter_attributes() or part in policy.VALUE_DENIED


def _format_fields(text: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(text) if name]
    except (ValueError, IndexError):
        return []
