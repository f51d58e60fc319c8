"""What the kit notices in a submission besides the code it grades: the breakout quiz sheets among its notebooks
(graded beside the code, autograder/breakout/sheets.py), and each import of the kit past the notebooks' facade,
which the loader leaves unrun with the kit's other statements and an instructor should read (the class report
lists it). Nothing here runs student code."""

from __future__ import annotations

import ast
import json
from pathlib import Path, PurePosixPath

from autograder.engine.contract import loader
from autograder.engine.contract.errors import SubmissionError

# What a notebook imports of the kit: every other import of it reaches past the notebooks' helpers, and is noted.
KIT_FACADE = f"{loader.KIT_PACKAGE}.notebook"
KIT_REACH = "the kit's own code, not its notebooks' helpers: it was not run, and is listed for your instructor to read"


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
    """A note for each top-level import of the kit other than its notebooks' facade (the grader's internals, the
    reference) in the submission's files and code cells, where the loader labels them."""
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
    try:
        tree = ast.parse(code or "")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return []
    reached = []
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            modules = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom) and not statement.level:
            base = statement.module or ""
            modules = [base] if base != loader.KIT_PACKAGE else [f"{base}.{alias.name}" for alias in statement.names]
        else:
            continue
        reached += [
            f"{label}: line {statement.lineno} imports {module}, {KIT_REACH}"
            for module in modules
            if module.split(".")[0] in loader.KIT_MODULES and module != KIT_FACADE
        ]
    return reached
