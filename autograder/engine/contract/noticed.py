"""What the kit notices in a submission besides the code it grades: the breakout quiz sheets among its notebooks
(graded beside the code, autograder/breakout/sheets.py), and each statement that reaches for the kit (imports the
reference, or changes what it imported of the kit), which the loader leaves unrun with the kit's other statements
and an instructor should read (the class report lists it). Nothing here runs student code."""

from __future__ import annotations

import ast
import json
from pathlib import Path, PurePosixPath

from autograder.engine.contract import loader
from autograder.engine.contract.errors import SubmissionError
from autograder.engine.contract.kit_statements import KIT_MODULES

REFERENCE = "solutions"  # the reference's package: a submission that imports it reaches for the answers
KIT_REACH = "which reaches for the kit itself: it was not run, and is listed for your instructor to read"
# What a note of statements that did not run says (engine/child/scrutiny.py writes it): the class report lists each
# such note for an instructor to read, as it lists KIT_REACH's.
NOT_RUN = "not run, since nothing graded needs"


def quiz_sheet(text: str) -> tuple[str, list[dict[str, object]]] | None:
    """(the bank's part it names, its cells) of a breakout quiz sheet's text, by its metadata; None for any other
    file."""
    try:
        notebook = json.loads(text)
        metadata, cells = notebook.get("metadata"), notebook.get("cells")
    except (ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(metadata, dict) or loader.QUIZ_METADATA not in metadata or not isinstance(cells, list):
        return None
    return str(metadata[loader.QUIZ_METADATA]), [cell for cell in cells if isinstance(cell, dict)]


def kit_reaches(path: str | Path) -> list[str]:
    """A note for each top-level statement of the submission's files and code cells, where the loader labels them,
    that reaches for the kit: imports the reference, or changes what it imported of the kit."""
    try:
        _, files, _ = loader.read_files(path)
    except SubmissionError:
        return []
    notes: list[str] = []
    for relative, text in files:
        name = PurePosixPath(relative).name
        if relative.endswith(".py"):
            notes += _reaches(name, text)
            continue
        try:
            cells = json.loads(text).get("cells")
        except (ValueError, AttributeError, RecursionError):
            continue
        code = (
            [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
            if isinstance(cells, list)
            else []
        )
        for number, cell in enumerate(code, start=1):
            source = cell.get("source", "")
            source = "".join(map(str, source)) if isinstance(source, list) else str(source)
            notes += _reaches(loader.cell_label(name, number, source), loader.without_magics(source))
    return notes


def _reaches(label: str, code: str | None) -> list[str]:
    """The notes of a cell or file: an import of the reference, and each statement that changes what an import of
    the kit bound (`kit.grade_here = ...`, `setattr(kit, ...)`, `del kit.x`). Calling the kit's helpers is what
    a notebook does, and is not noted."""
    try:
        tree = ast.parse(code or "")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return []
    bound: dict[str, str] = {}  # a name an import of the kit bound -> the module
    reached = []
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for module, name in _imported(statement):
                if module.split(".")[0] == REFERENCE:
                    reached.append(f"{label}: line {statement.lineno} imports {module}, {KIT_REACH}")
                elif module.split(".")[0] in KIT_MODULES:
                    bound[name] = module
            continue
        changed = sorted({bound[n] for n in _changed(statement) if n in bound})
        reached += [f"{label}: line {statement.lineno} changes {module}, {KIT_REACH}" for module in changed]
    return reached


def _imported(statement: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """[(module, the name it binds)] of an import statement."""
    if isinstance(statement, ast.Import):
        return [(a.name, a.asname or a.name.split(".")[0]) for a in statement.names]
    if statement.level:
        return []
    return [(f"{statement.module}.{a.name}", a.asname or a.name) for a in statement.names]


def _changed(statement: ast.stmt) -> set[str]:
    """The names whose attributes or items a statement assigns or deletes, or gives to setattr or delattr."""
    targets: list[ast.expr] = []
    for node in ast.walk(statement):
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets += node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets.append(node.target)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            targets += node.args[:1]
    names = set()
    for target in targets:
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
        if isinstance(target, ast.Name):
            names.add(target.id)
    return names
