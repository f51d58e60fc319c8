"""The static check: what a submission's code reaches for, decided before any of it runs. It denies by default.

It runs in the jail, in a child that parses the submission and never runs it (server.parse), with torch
imported and no student code loaded, so a dotted name is judged by the object it really reaches. Every
name, attribute, import, builtin and base class must be one the policy lends (contract/policy/, read
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

Here, what the findings decide; each statement is read by scan.py, with what names.py reads of the whole
submission (what its code binds, and the aliases of library names).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograder.engine.child.names import Context, module_bindings
from autograder.engine.child.scan import Scan
from autograder.engine.contract import spec
from autograder.engine.contract.noticed import NOT_RUN

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from autograder.engine.contract.loader import Submission, Unit

MAX_NOTES = 20


@dataclass
class Statement:
    unit: int  # its unit's index in the submission
    label: str
    node: ast.stmt
    module: str
    # (line, text, kind): kind None for a held construct, else a kernel
    findings: list[tuple[int, str, str | None]] = field(default_factory=list)
    loads: set[tuple[str, str]] = field(default_factory=set)  # (module, name) pairs it reads from module scope
    binds: frozenset[str] = field(default_factory=frozenset)  # names it binds in its module's scope
    stars: list[str] = field(default_factory=list)  # own modules it imports * from
    noted: list[str] = field(default_factory=list)  # what of it does not run though the statement does, and why
    stubs: list[tuple[int, int]] = field(default_factory=list)  # (line, column) of methods whose body never runs
    never: bool = False  # `if __name__ == "__main__":`, which grading never runs

    @property
    def where(self) -> tuple[int, int]:
        return (self.node.lineno, self.node.col_offset)

    def line(self, line: int) -> str:
        return f"{self.label}, line {line}"


@dataclass
class Verdict:
    """What the check found. held and kernels: {component id: ["FILE, line N: text", ...]}; skipped:
    {unit index: [[line, column], ...]} of top-level statements that do not run, and of methods whose body does not
    (runtime.SourceImporter replaces it with a raise); missing: {name: why it is
    not defined}, for the message of code that needs it anyway; notes; unreadable: [(unit, why)]."""

    held: dict[str, list[str]] = field(default_factory=dict)
    kernels: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[int, list[list[int]]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unreadable: list[tuple[Unit, str]] = field(default_factory=list)


def check(submission: Submission) -> Verdict:
    """The Verdict for a loader.Submission's units."""
    verdict = Verdict()
    statements: list[Statement] = []
    trees: dict[int, ast.Module] = {}
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


def _decide(verdict: Verdict, statements: list[Statement], owners: Mapping[str, str]) -> None:
    """From each statement's findings and what each graded name needs: which components are held, which
    statements do not run (with a note for each that a student would miss), and which names that leaves undefined."""
    binders = _Binders(statements)
    closures: dict[str, list[Statement]] = {}
    for component in spec.ALL_COMPONENTS:
        roots = [s for name in component.names if name in owners for s in binders.direct.get((owners[name], name), [])]
        closures[component.id] = _closure(roots, _needs_for(component, binders))
        _hold(verdict, component, closures[component.id])
    needed = {id(s) for closure in closures.values() for s in closure}
    running = {id(s) for c, closure in closures.items() if c not in verdict.held for s in closure}
    skipped, reasons = _skipped(statements, needed, running)
    _skip_what_needs_them(statements, skipped, reasons, running, binders)
    gone = {id(s) for s in skipped}
    for statement in statements:
        if id(statement) not in gone and statement.stubs:
            verdict.skipped.setdefault(statement.unit, []).extend(list(where) for where in statement.stubs)
    for statement in skipped:
        verdict.skipped.setdefault(statement.unit, []).append(list(statement.where))
        why = next(
            (f"{statement.line(line)} {text}" for line, text, kind in statement.findings if kind is None),
            f"{statement.line(statement.node.lineno)} was not run",
        )
        for name in module_bindings(statement.node):
            verdict.missing.setdefault(name, why)
    verdict.notes = _notes([s for s in statements if id(s) not in gone or id(s) in reasons], reasons)


class _Binders:
    """The statements that bind each module-scope name: directly, or through an own module's `import *`."""

    def __init__(self, statements: Iterable[Statement]) -> None:
        self.direct: dict[tuple[str, str], list[Statement]] = {}
        self.stars: dict[str, set[str]] = {}
        for statement in statements:
            for name in statement.binds:
                self.direct.setdefault((statement.module, name), []).append(statement)
            for module in statement.stars:
                self.stars.setdefault(statement.module, set()).add(module)

    def of(self, module: str, name: str, seen: set[str] | None = None) -> list[Statement]:
        seen = set() if seen is None else seen
        if module in seen:
            return []
        seen.add(module)
        found = list(self.direct.get((module, name), []))
        for source in sorted(self.stars.get(module, ())):
            found += self.of(source, name, seen)
        return found


def _needs_for(component: spec.Component, binders: _Binders) -> Callable[[Statement], list[Statement]]:
    """What a statement needs while component is graded: every other component's names are the reference's
    then (binding.py), so what the student wrote for those is not what this one runs, and cannot hold it."""

    def needs(statement: Statement) -> list[Statement]:
        return [
            found
            for module, name in statement.loads
            if spec.OWNER.get(name, component) is component
            for found in binders.of(module, name)
        ]

    return needs


def _hold(verdict: Verdict, component: spec.Component, closure: Iterable[Statement]) -> None:
    """Record what the statements a component needs reach for: a held construct, or a kernel of its own."""
    for statement in closure:
        for line, text, kind in statement.findings:
            if kind is None:
                _add(verdict.held, component.id, f"{statement.line(line)}: {text}")
            elif kind in component.kernels:
                _add(verdict.kernels, component.id, f"{statement.line(line)}: {text}")


def _skipped(
    statements: Iterable[Statement], needed: set[int], running: set[int]
) -> tuple[list[Statement], dict[int, str]]:
    """The statements that do not run: held, or needed by a held component alone, or never run in grading;
    and {statement id: why it is not run} for the held ones nothing graded needs."""
    reasons: dict[int, str] = {}
    skipped: list[Statement] = []
    for statement in statements:
        outside = next(((line, text) for line, text, kind in statement.findings if kind is None), None)
        if statement.never or (outside is None and (id(statement) in running or id(statement) not in needed)):
            skipped += [statement] if statement.never else []
            continue
        skipped.append(statement)  # held, or needed by a held component alone
        if outside and id(statement) not in needed:
            reasons[id(statement)] = f"line {outside[0]} {outside[1]}"
    return skipped, reasons


def _skip_what_needs_them(
    statements: Sequence[Statement],
    skipped: list[Statement],
    reasons: dict[int, str],
    running: set[int],
    binders: _Binders,
) -> None:
    """What needs only statements that do not run does not run either: added to skipped, with its reason."""
    gone = {id(s) for s in skipped}
    changed = True
    while changed:
        changed = False
        for statement in statements:
            if id(statement) in gone or id(statement) in running:
                continue
            lost = [
                name
                for module, name in sorted(statement.loads)
                if (found := binders.of(module, name)) and all(id(s) in gone for s in found)
            ]
            if lost:
                skipped.append(statement)
                gone.add(id(statement))
                changed = True
                reasons[id(statement)] = f"line {statement.node.lineno} needs {lost[0]}, which was not run"


def _notes(statements: Iterable[Statement], reasons: Mapping[int, str]) -> list[str]:
    """One line per cell or file that has statements nothing graded needs and that did not run: how many,
    and the first one's reason (the rest of a plot's cell follows from its import)."""
    by_unit: dict[str, list[str]] = {}
    parts: list[str] = []
    for statement in statements:
        if id(statement) in reasons:
            by_unit.setdefault(statement.label, []).append(reasons[id(statement)])
        elif not statement.never:
            parts += [f"{statement.label}, {text}" for text in statement.noted]
    notes = [
        f"{label}: {len(why)} statement{'s' if len(why) > 1 else ''} {NOT_RUN} "
        f"{'them' if len(why) > 1 else 'it'}: {why[0]}"
        for label, why in by_unit.items()
    ] + parts
    return notes[:MAX_NOTES] + (
        [f"and {len(notes) - MAX_NOTES} more cells or files with statements not run"] if len(notes) > MAX_NOTES else []
    )


def _closure(roots: Iterable[Statement], needs: Callable[[Statement], list[Statement]]) -> list[Statement]:
    seen: dict[int, Statement] = {}
    stack = list(roots)
    while stack:
        statement = stack.pop()
        if id(statement) not in seen:
            seen[id(statement)] = statement
            stack.extend(needs(statement))
    return list(seen.values())


def _add(table: dict[str, list[str]], component: str, text: str) -> None:
    reasons = table.setdefault(component, [])
    if text not in reasons:
        reasons.append(text)
