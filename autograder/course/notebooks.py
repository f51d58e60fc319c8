"""The course notebooks: nbgrader source notebooks built from course/parts/*.md and the reference, and the
student release that `nbgrader generate_assignment` makes from them.

A part is Markdown. Its prose becomes Markdown cells; its fenced blocks become code cells by their info
string:

    ```python                plain code the student runs (worked examples, pictures)
    ```setup                 (empty) the imports the exercises need, and the student's own earlier parts
    ```steps COMPONENT       (empty) the component's steps as engine/authoring/steps/ declares them, in order: each
                             numbered with its title and prose, the reference's helper copied with its solution
                             region like an exercise, then a locked cell that runs its public check,
                             `check_step("NAME", NAME)` (public.check_step: the suites' own comparison on the
                             step's public cases)
    ```exercise NAME ...     (empty) an exercise cell: these SPEC definitions, copied from the reference
                             with their solution regions, which nbgrader turns into stubs; a name outside
                             the SPEC (an ungraded exercise) is copied from course/exercises/ the same way
    ```graded COMPONENT      the test cell of COMPONENT, worth its SPEC points: the block's public checks,
                             which the student runs (and `nbgrader validate` with them), then the hidden
                             tests that grade the component

A step is never graded: nothing collects its name (loader.py collects SPEC names), and its check cell is
tagged as a worked example, so grading skips it. A graded definition that calls the student's own steps
finds them where grading runs it, in the same notebook's module, beside it.

The code of every exercise comes from solutions/, the points from spec.py and the checks from the
kit's own modules, so nothing here is a second copy of any of them.
"""

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.course import release, stubs
from autograder.course.jupyter import KERNEL_DISPLAY_NAME, KERNEL_NAME
from autograder.course.release import COURSE
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.contract.loader import DEMO_TAG

PARTS = COURSE / "parts"
# The reference of the ungraded exercises, whose names are outside the SPEC: copied as the reference's are.
EXERCISES = stubs.EXERCISES
# The SPEC names the notebooks grade: the core's and generation's (part 10). Part 9 still teaches the training
# component's names as ungraded exercises of EXERCISES, until it is written as the graded ones (issue 48, item 2).
GRADED = {name: component for name, component in spec.OWNER.items() if component.id != "training"}
ASSIGNMENT = "transformer"
SOURCE = COURSE / "source" / ASSIGNMENT
RELEASE = COURSE / "release" / ASSIGNMENT
KERNELSPEC = {"name": KERNEL_NAME, "display_name": KERNEL_DISPLAY_NAME, "language": "python"}

# Said at the top of every notebook, coding and breakout: opened in another kernel (Jupyter's default
# python3), the kit cannot be imported, and the first check cell would stop with no word of why.
KERNEL_NOTE = (
    f"*This notebook runs in the **{KERNEL_DISPLAY_NAME}** kernel, named at the top right (Kernel → Change "
    "Kernel… to switch). In another kernel, the cells that check your work stop at `ModuleNotFoundError: No module "
    "named 'autograder'`.*"
)

# Said under the kernel's note of every notebook with exercises, by the course's hints setting (course/settings.yaml).
HINTS_NOTES = {
    "on-request": (
        "*Each exercise and step has hints in levels: the question to ask yourself, then the operation, then the "
        'line. Try first; when you are stuck, `hint("NAME")` prints the next level for the exercise or step NAME '
        "(its function's or class's name), and a failed check shows the level that matches what failed.*"
    ),
    "after-failure": (
        "*Each exercise and step has hints in levels: the question to ask yourself, then the operation, then the "
        "line. They open once a check of that exercise or step fails: the failed check shows the level that "
        'matches what failed, and `hint("NAME")` then prints the next.*'
    ),
    "none": "",
}

# What worked examples use besides the exercises' own imports.
STANDARD_IMPORTS = ("import math", "import torch", "from torch import nn", "from torch.nn import functional as F")
FENCE = re.compile(r"^```(\w+)?[ \t]*(.*)$")
KINDS = ("python", "setup", "steps", "exercise", "graded")


@dataclass
class Cell:
    kind: str  # markdown, python, setup, steps, exercise, graded
    text: str
    args: tuple = ()


def parts():
    return sorted(PARTS.glob("*.md"))


def notebook_name(part):
    return f"{part.stem}.ipynb"


def parse(text, name="<part>"):
    """The cells of a part, in order."""
    cells: list[Cell] = []
    prose: list[str] = []
    block: Cell | None = None
    opened = 0
    lines: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line)
        if block is None and fence:
            _flush_prose(cells, prose)
            kind, args = fence.group(1) or "", tuple(fence.group(2).split())
            if kind not in KINDS:
                raise KitFault(f"{name}:{number}: unknown block ```{kind}")
            block, opened = Cell(kind, "", args), number
            lines = []
        elif block is not None and line.strip() == "```":
            block.text = "\n".join(lines).strip("\n")
            cells.append(block)
            block = None
        elif block is not None:
            lines.append(line)
        else:
            prose.append(line)
    if block is not None:
        raise KitFault(f"{name}:{opened}: the block opened here is never closed")
    _flush_prose(cells, prose)
    return cells


def _flush_prose(cells, prose):
    text = "\n".join(prose).strip("\n")
    if text.strip():
        cells.append(Cell("markdown", text))
    prose.clear()


def source_notebook(part, hints=None):
    """The nbgrader source notebook of a part, as a dict, under the course's hints setting unless given."""
    name = notebook_name(part)
    cells = parse(part.read_text(), part.name)
    owned = [c.args for c in cells if c.kind == "exercise"]
    graded = [c.args[0] for c in cells if c.kind == "graded" and c.args]
    components = [GRADED[names[0]].id for names in owned if names and names[0] in GRADED]
    cells_out = []
    for index, cell in enumerate(cells):
        cell_id = f"{Path(name).stem}-{index:02d}"
        if cell.kind == "markdown":
            cells_out.append(notebook_cell("markdown", cell_id, cell.text))
            if index == 0:
                cells_out.append(notebook_cell("markdown", f"{Path(name).stem}-kernel", KERNEL_NOTE))
                cells_out += _hints_cells(Path(name).stem, part, hints or stubs.hints_setting())
        elif cell.kind == "python":
            cells_out.append(notebook_cell("code", cell_id, cell.text, tags=[DEMO_TAG]))
        elif cell.kind == "setup":
            cells_out += _setup_cells(cell_id, components, name)
        elif cell.kind == "steps":
            cells_out += _steps_cells(cell_id, cell.args, cell.text, part.name)
        elif cell.kind == "exercise":
            definitions = _definitions(cell.args, part.name)
            # The grader loads only cells that may define graded names: an ungraded exercise, tagged as a worked
            # example is, would only add notes on the statements it leaves out to every student's results.
            ungraded = [DEMO_TAG] if not any(name in GRADED for name in cell.args) else []
            meta = nbgrader_metadata(cell_id, solution=True)
            cells_out.append(notebook_cell("code", cell_id, definitions, meta, tags=ungraded))
        elif cell.kind == "graded":
            cells_out.append(_graded_cell(cell_id, cell.args, cell.text, name, part.name))
    missing = sorted(set(components) - set(graded))
    if missing:
        raise KitFault(f"{part.name}: no ```graded block for {', '.join(missing)}")
    return {
        "cells": cells_out,
        "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _hints_cells(stem, part, setting):
    """How to ask for hints, and the cell that imports hint(), under the course's setting: nothing with none, nor in
    a notebook without exercises. A worked example's tag, so that grading skips the import."""
    note = HINTS_NOTES[setting]
    if not note or not _has_exercises(part):
        return []
    return [
        notebook_cell("markdown", f"{stem}-hints", note),
        notebook_cell("code", f"{stem}-hint", "from autograder.notebook import hint", tags=[DEMO_TAG]),
    ]


def notebook_cell(kind, cell_id, text, nbgrader=None, tags=()):
    """A cell as nbformat 4 stores it, with its nbgrader metadata: for the quiz notebooks too."""
    cell = {"cell_type": kind, "id": cell_id, "metadata": {"tags": list(tags)} if tags else {}, "source": text}
    if nbgrader:
        cell["metadata"]["nbgrader"] = nbgrader
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def nbgrader_metadata(grade_id, solution=False, locked=False, points=None):
    """nbgrader's metadata for a cell: an answer (solution), a read-only cell (locked), graded if given points."""
    meta = {
        "grade": points is not None,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        meta["points"] = points
    return meta


def _setup_cells(cell_id, components, name):
    """The exercises' imports (those of their reference files), then the student's own earlier parts."""
    imports = set(STANDARD_IMPORTS) if components else set()
    for component_id in components:
        tree = ast.parse(spec.BY_ID[component_id].reference.read_text())
        imports |= {
            ast.unparse(node)
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.ImportFrom) and node.module in spec.BY_ID)
        }
    cells = [notebook_cell("code", cell_id, "\n".join(sorted(imports, key=_import_order)))] if imports else []
    earlier = [notebook_name(p) for p in parts() if notebook_name(p) < name and _has_exercises(p)]
    if earlier:
        calls = ", ".join(repr(n) for n in earlier)
        cells.append(
            notebook_cell(
                "code",
                f"{cell_id}-earlier",
                (
                    "# Your own classes from the earlier notebooks, as they are saved on disk.\n"
                    "from autograder.notebook import use_notebooks\n\n"
                    f"use_notebooks(globals(), {calls})"
                ),
            )
        )
    return cells


def _import_order(line):
    return (line.startswith("from"), line)


def _has_exercises(part):
    return any(cell.kind == "exercise" for cell in parse(part.read_text(), part.name))


def _steps_cells(cell_id, args, text, where):
    """The component's steps, each numbered with its title and what is said of it, then its exercise cell (the
    reference's helper, its solution region a stub in the release) and its check."""
    from autograder.engine.authoring import steps

    if len(args) != 1 or text.strip():
        raise KitFault(f"{where}: ```steps takes one component and an empty block, got {' '.join(args) or 'none'}")
    (component,) = args
    if not steps.of(component):
        raise KitFault(f"{where}: {component} has no steps (engine/authoring/steps/ declares each component's)")
    cells = []
    for number, step in enumerate(steps.of(component), 1):
        cells.append(notebook_cell("markdown", f"{cell_id}-{number}", step.heading(number)))
        cells += _step_cells(f"{cell_id}-{number}-{step.name}", step.name, spec.BY_ID[component].reference, where)
    return cells


def _step_cells(cell_id, name, reference, where):
    """A step's exercise cell, then its check."""
    check = (
        f"# The public check of your step {name}: a step towards the exercise, never graded itself.\n"
        "# Leave this cell as it is.\n"
        "from autograder.notebook import check_step\n\n"
        f"check_step({name!r}, {name})"
    )
    return [
        notebook_cell(
            "code", cell_id, _definitions([name], where, reference), nbgrader_metadata(cell_id, solution=True)
        ),
        # Locked, so that nbgrader puts it back if it is changed; a worked example's tag, so that grading skips it.
        notebook_cell("code", f"{cell_id}-check", check, nbgrader_metadata(f"step-{name}", locked=True), [DEMO_TAG]),
    ]


def step_reference(name):
    """The reference file that defines the helper function name at its top level, or None (every other top-level
    name of solutions/ is a SPEC name, which is no step)."""
    return next(iter(_defining(spec.SOLUTIONS, name)), None)


def _definitions(names, where, reference=None):
    """The source of these top-level definitions in the reference (the SPEC component's file unless given),
    solution regions included."""
    chunks = []
    for name in names:
        path = reference or _reference_of(name, where)
        source = path.read_text()
        body = ast.parse(source).body
        index = next((i for i, n in enumerate(body) if getattr(n, "name", None) == name), None)
        if index is None:
            raise KitFault(f"{where}: {path.name} does not define {name}")
        # Up to the next top-level statement: a trailing `### END SOLUTION` is a comment, outside the node.
        lines = source.splitlines()
        end = _first_line(body[index + 1]) - 1 if index + 1 < len(body) else len(lines)
        chunks.append(stubs.without_ladders("\n".join(lines[_first_line(body[index]) - 1 : end]).rstrip(), path.name))
    return "\n\n\n".join(chunks)


def _reference_of(name, where):
    """The file that defines an exercise: its component's reference, or for a name outside the SPEC (an
    ungraded exercise) the one file of course/exercises/ that defines it at top level."""
    if name in GRADED:
        return GRADED[name].reference
    defining = _defining(EXERCISES, name)
    if len(defining) != 1:
        found = f" (defined in {', '.join(p.name for p in defining)})" if defining else ""
        raise KitFault(f"{where}: {name} is not a SPEC name, nor defined in exactly one of course/exercises/{found}")
    return defining[0]


def _defining(folder, name):
    """The Python files of folder that define name at their top level."""
    return [path for path in sorted(folder.glob("*.py")) if _defines(path.read_text(), name)]


def _defines(source, name):
    return any(getattr(node, "name", None) == name for node in ast.parse(source).body)


def _first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _graded_cell(cell_id, args, checks, name, where):
    """The component's test cell: its public checks, which fail until the exercise is right (so that
    `nbgrader validate` fails on an unfinished notebook), then the hidden tests, which the release lacks."""
    if len(args) != 1 or args[0] not in spec.BY_ID:
        raise KitFault(f"{where}: ```graded takes one component id, got {' '.join(args) or 'none'}")
    if not checks.strip():
        raise KitFault(f"{where}: ```graded {args[0]} needs the component's public checks in its block")
    component = spec.BY_ID[args[0]]
    text = (
        f"# The public checks of your {component.id}, which run on your machine. Leave this cell as it is: when\n"
        f"# your instructor grades the notebook, the hidden tests of {component.id} ({component.points} points) run\n"
        "# here, on the grader's machine, as `python -m autograder grade` runs them; your copy does not hold them.\n"
        f"{checks.rstrip()}\n"
        "### BEGIN HIDDEN TESTS\n"
        "from autograder.notebook import grade_here\n\n"
        f"grade_here({component.id!r}, {name!r})\n"
        "### END HIDDEN TESTS"
    )
    return notebook_cell(
        "code", cell_id, text, nbgrader_metadata(f"grade-{component.id}", locked=True, points=component.points)
    )


def dumps(notebook):
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def expected_sources(hints=None):
    """{path under course/source: text} of every source notebook, under the course's hints setting unless given."""
    return {SOURCE / notebook_name(part): dumps(source_notebook(part, hints)) for part in parts()}


def write():
    release.write_assignment(ASSIGNMENT, expected_sources())


def drift():
    """The coding notebooks' files that differ from what write() would produce."""
    return release.assignment_drift(ASSIGNMENT, expected_sources())
