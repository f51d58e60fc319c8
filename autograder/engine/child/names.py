"""What a submission's code binds and names, read from its syntax for the static check (scrutiny.py).

The module-scope names a top-level statement binds or changes, the names local to a function, the
statements that hold the code of a scope, and what the whole submission tells about each name (Context):
its own modules, classes and attributes, and the aliases that spell out a dotted library name.
"""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Collection, Iterator, Mapping, Sequence

    from autograder.engine.contract.loader import Unit

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Context:
    """What the whole submission tells about each name: its own modules, classes and attribute names, and
    each module's aliases (a local name for a dotted library name: `import torch.nn.functional as F`)."""

    def __init__(self, own_modules: Collection[str], trees: Mapping[int, ast.Module], units: Sequence[Unit]) -> None:
        self.own_modules = own_modules
        self.classes: set[str] = set()
        self.attributes: set[str] = set()
        self.strings: set[str] = set()
        self.referenced: set[str] = set()  # every name and attribute name code reads, and every identifier in a string
        self.aliases: dict[str, dict[str, set[str]]] = {}  # module -> local name -> the dotted names it stands for
        self.bound: dict[str, set[str]] = {}  # module -> the names its top-level statements bind
        stars: set[tuple[str, str]] = set()
        assignments: list[
            tuple[str, ast.Assign | ast.AnnAssign]
        ] = []  # one walk of each tree gathers what the rounds below read again
        for index, tree in trees.items():
            module = units[index].module
            aliases = self.aliases.setdefault(module, {})
            bound = self.bound.setdefault(module, set())
            for statement in tree.body:
                bound |= module_bindings(statement)
            for node in ast.walk(tree):
                self._learn(node, aliases)
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    assignments.append((module, node))
                elif (
                    isinstance(node, ast.ImportFrom)
                    and any(a.name == "*" for a in node.names)
                    and node.module
                    and node.module.split(".")[0] in own_modules
                ):
                    stars.add((module, node.module))
        for _ in range(3):  # chains of aliases (a = torch; b = a.nn; c = b.functional), and `%run` star imports
            for module, source in stars:
                for name, spelled in self.aliases.get(source, {}).items():
                    if name not in self.bound.get(module, ()):
                        self.aliases.setdefault(module, {}).setdefault(name, set()).update(spelled)
            for module, assignment in assignments:
                aliases = self.aliases[module]
                dotted = self.dotted(assignment.value, aliases)
                targets = assignment.targets if isinstance(assignment, ast.Assign) else [assignment.target]
                for target in targets:
                    if dotted and isinstance(target, ast.Name):
                        aliases.setdefault(target.id, set()).add(dotted)

    def _learn(self, node: ast.AST, aliases: dict[str, set[str]]) -> None:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            self.referenced.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.referenced.add(node.id)
        if isinstance(node, ast.ClassDef):
            self.classes.add(node.name)
            for item in node.body:
                self.attributes |= module_bindings(item)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            self.attributes.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.attributes.add(node.name)
        elif isinstance(node, ast.Call):
            self.attributes |= declared_fields(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            self.strings.add(node.value)  # a name setattr(self, name, ...) may give self
            self.referenced.add(node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                aliases.setdefault(local, set()).add(alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    aliases.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")

    def dotted(self, node: ast.expr | None, aliases: Mapping[str, set[str]]) -> str | None:
        """The dotted names an attribute chain on an alias spells out (`F.softmax` -> torch.nn.functional.softmax)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in aliases:
            return next(iter(sorted(".".join([base, *reversed(parts)]) for base in aliases[node.id])))
        return None


def declared_fields(call: ast.Call) -> set[str]:
    """The attribute names a call declares for the values it makes: a named tuple's fields
    (`namedtuple("Stats", "mean variance")`, `NamedTuple("Stats", [("mean", Tensor), ...])`) and a
    `SimpleNamespace`'s keywords. Only literal names: a computed one is checked where it is read."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called == "SimpleNamespace":
        return {keyword.arg for keyword in call.keywords if keyword.arg}
    if called not in ("namedtuple", "NamedTuple"):
        return set()
    given = [*call.args[1:2], *(k.value for k in call.keywords if k.arg in ("field_names", "fields"))]
    names: set[str] = set()
    for value in given:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            names |= set(value.value.replace(",", " ").split())
        elif isinstance(value, (ast.List, ast.Tuple)):
            for item in value.elts:
                if isinstance(item, (ast.List, ast.Tuple)) and item.elts:
                    item = item.elts[0]
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    names.add(item.value)
    names |= {k.arg for k in call.keywords if called == "NamedTuple" and k.arg}
    return {name for name in names if name.isidentifier()}


def changed_names(node: ast.stmt) -> set[str]:
    """The module-scope names whose objects a top-level statement changes (`LayerNorm.forward = f`,
    `registry[key] = f`, `registry.append(f)`): what loads such a name needs the statement as it needs the
    name's definition."""
    names = set()
    for current in own_statements(node):
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


@functools.lru_cache(maxsize=4096)
def module_bindings(node: ast.AST) -> frozenset[str]:
    """The names a top-level statement binds in its module: what it assigns, defines or imports, outside the
    functions, classes and comprehensions it holds, and what those declare global.

    Cached by node (a syntax tree's nodes hash by identity): the check asks of a statement, of each method as a
    class's body and again as a function's, and of every statement inside a function for its locals."""
    names: set[str] = set()
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
        elif isinstance(current, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and current.name:
            names.add(current.name)
        stack.extend(ast.iter_child_nodes(current))
    return frozenset(names)


def never_runs(node: ast.stmt) -> bool:
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


def local_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
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
    imported: set[str] = set()
    for node in body:
        names |= module_bindings(node)
        imported |= {
            (a.asname or a.name).split(".")[0]
            for n in own_statements(node)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }
    return names - declared - imported


def own_statements(node: ast.AST) -> Iterator[ast.AST]:
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
