"""Turn a submission (a notebook, a .py file, or a folder of them) into plain source units.

Nothing here runs student code. The judge only reads the files, bounded (read_files); a child in the
jail parses them (load_files) and another runs them. A unit is one file, or one code
cell of a notebook, made safe to exec: IPython magics and shell lines become `pass`. Left out: test
cells (nbgrader's autograded test cells, and the course notebooks' worked examples, tagged "demo"), the
breakout quiz notebooks, the statements of a cell or file that use the kit itself (a self-check line
beside an exercise: `from autograder.notebook import check_multihead; check_multihead(MultiHeadAttention)`),
a copy of the kit's own package (the student bundle's `autograder/`, uploaded with the notebooks), and
.py files named like a module the grader runs on (`torch.py`), which would hide the real one.
"""

import ast
import json
import os
import re
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autograder.engine.contract.errors import SubmissionError
from autograder.engine.contract.kit_statements import KIT_MODULES, KIT_PACKAGE, without_kit
from autograder.engine.contract.spec import ALL_NAMES

MAGIC = re.compile(r"^\s*(%|!|\w+\s*=\s*[!%])")
RUNNABLE_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")
# `%time x = f()` runs its statement, as IPython does; what follows it may need x.
RUNNABLE_LINE_MAGIC = re.compile(r"^(\s*)%(?:time|timeit)\s+(?:-[nrp]\s*\d+\s+|-[tcqo]\s+)*(?!%)(\S.*)$")
# A top-level `%run FILE` line, as _as_pass leaves it.
RUN_MAGIC = re.compile(r"^pass  # %run\s+(?:-\S+\s+)*(\S+)\s*$", re.MULTILINE)
# The course notebooks tag their worked examples: they run the student's code for show, never to define it.
DEMO_TAG = "demo"
# The breakout quiz notebooks carry this notebook metadata key: a student's folder may hold them too.
QUIZ_METADATA = "breakout_quiz"
# A student's file by one of these names would hide the module that the grader, or the student's own
# code, imports: the standard library, what a submission may import, and what grading runs on.
LIBRARY_MODULES = (
    frozenset(sys.stdlib_module_names)
    | set(KIT_MODULES)
    | {
        "torch",
        "numpy",
        "pytest",
        "_pytest",
        "pluggy",
        "transformers",
        "matplotlib",
        "IPython",
        "ipykernel",
        "nbgrader",
        "yaml",
        "sympy",
        "scipy",
        "pandas",
        "typing_extensions",
    }
)


@dataclass
class Unit:
    module: str  # the module it executes in; cells of one notebook share one
    label: str  # where it came from, for messages: '02_multihead.ipynb, code cell 3 ("class MultiHeadAttention(nn.Module):")'
    code: str
    skip: list[list[int]] = field(
        default_factory=list
    )  # [line, column] of each top-level statement that must not run, and each method whose body must not (scrutiny)


@dataclass
class Submission:
    units: list[Unit]
    owners: dict[str, str]  # SPEC name -> module that defines it
    notes: list[str] = field(default_factory=list)  # things the student should know, found while parsing

    def as_message(self) -> dict[str, object]:
        return {"units": [vars(u) for u in self.units], "owners": self.owners}


# What the judge reads of a submission, at most: bigger or more is left out with a note. The judge
# never parses these bytes; the jail does (child.parse).
MAX_FILE_BYTES = 16 << 20
MAX_TOTAL_BYTES = 64 << 20
MAX_ENTRIES = 10_000  # folder entries walked
MAX_NOTES = 50


def load(path: str | Path) -> Submission:
    """The submission at path, read and parsed in this process: for the kit's own files and the student's own loop."""
    return load_files(*read_files(path))


def read_files(path: str | Path) -> tuple[str, list[tuple[str, str]], list[str]]:
    """(name, [(relative path, text)], notes): the submission's .py and .ipynb files, read without trusting them.

    Regular files only, each read once through a descriptor that cannot block or follow a link: a FIFO,
    a device, a socket, a link that leaves the submission or a file over the limits is skipped with a
    note, and the walk itself is bounded.
    """
    root = Path(path)
    candidates, notes = candidate_files(root)
    files: list[tuple[str, str]] = []
    total = 0
    for relative, file in candidates:
        text, problem = _read(file, root if root.is_dir() else root.parent, MAX_TOTAL_BYTES - total)
        if text is None:
            notes.append(f"{relative} was skipped: {problem}")
        else:
            files.append((relative, text))
            total += len(text)
    return str(path), files, notes


def candidate_files(root: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """([(relative path, path)], notes): the files of the submission at root that the grader would read;
    SubmissionError, in one sentence, where root is no submission at all (missing, another kind of file, a
    folder without a notebook or a Python file)."""
    if not root.exists():
        raise SubmissionError(f"{root} does not exist")
    if root.is_dir():
        candidates, notes = _walk(root)
        if not candidates:
            raise SubmissionError(f"{root} holds no notebook (.ipynb) or Python file (.py)")
        return candidates, notes
    if root.suffix in (".py", ".ipynb"):
        return [(root.name, root)], []
    raise SubmissionError(f"{root} is not a notebook (.ipynb), a Python file (.py) or a folder of them")


def _walk(root: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    candidates: list[tuple[str, Path]] = []
    notes: list[str] = []
    seen = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        # A student who uploads the whole bundle uploads its autograder/ too: the kit's code, not theirs,
        # and code that imports the grader's internals besides. A package by that name would hide the kit.
        if KIT_PACKAGE in dirs:
            dirs.remove(KIT_PACKAGE)
            kit = (Path(folder) / KIT_PACKAGE).relative_to(root).as_posix()
            notes.append(
                f"{kit}/ was not graded: it is the kit's own package (the student bundle's copy), not your work"
            )
        for name in sorted(names):
            seen += 1
            if seen > MAX_ENTRIES:
                notes.append(f"the submission has more than {MAX_ENTRIES} files; the rest were not read")
                return candidates, notes
            if not name.startswith(".") and name.endswith((".py", ".ipynb")):
                file = Path(folder) / name
                candidates.append((file.relative_to(root).as_posix(), file))
    return candidates, notes


def _read(file: Path, root: Path, budget: int) -> tuple[str, None] | tuple[None, str]:
    """(text, None), or (None, why it was not read)."""
    try:
        if file.is_symlink() and not inside(file, root):
            return None, "it is a link to a file outside the submission"
        descriptor = os.open(file.resolve(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return None, f"it cannot be read ({error.strerror})"
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None, "it is not a regular file (a FIFO, a device or a socket)"
        if info.st_size > min(MAX_FILE_BYTES, budget):
            return None, f"it is larger than the {min(MAX_FILE_BYTES, budget) >> 20} MiB the grader reads"
        data = handle.read(info.st_size + 1)
    if len(data) > info.st_size:
        return None, "it grew while it was read"
    return data.decode("utf-8", errors="replace"), None


def inside(path: str | Path, folder: str | Path) -> bool:
    """True when path, links resolved, is folder or lies under it."""
    path, folder = Path(path).resolve(), Path(folder).resolve()
    return path == folder or folder in path.parents


def load_files(name: str, files: Iterable[Sequence[str]], notes: Iterable[str] = ()) -> Submission:
    """The Submission that these (relative path, text) files make; nothing here runs them."""
    paths = [(PurePosixPath(relative), text) for relative, text in files]
    units: list[Unit] = []
    said = list(notes)
    # .py files first: notebooks import them, never the other way round.
    for file, text in sorted(paths, key=lambda f: (f[0].suffix == ".ipynb", str(f[0]))):
        module = _module_name(file)
        if file.suffix == ".py":
            if module in LIBRARY_MODULES:
                said.append(
                    f"{file.name} was not graded: a file of that name hides the module {module} that your code "
                    f"and the grader import (the grader uses the real {module}); rename it to grade what it defines"
                )
                continue
            units.append(Unit(module, file.name, without_kit(text) or ""))
        else:
            # A notebook is never imported by name, so it may be called torch.ipynb: its module is renamed.
            units.extend(_notebook_units(file, text, f"{module}_ipynb" if module in LIBRARY_MODULES else module, said))
    _with_runs(units)
    owners = _owners(units, said)
    if not paths:
        said.append(f"no .py or .ipynb file of {name} could be read")
    return Submission(units, owners, distinct(said))


def distinct(notes: Iterable[str], limit: int = MAX_NOTES) -> list[str]:
    """The notes without repeats, in order, at most limit of them (linear time, whatever their number)."""
    kept = list(dict.fromkeys(notes))
    if len(kept) > limit:
        kept = kept[: limit - 1] + [f"and {len(kept) - limit + 1} more notes"]
    return kept


def _module_name(file: PurePosixPath) -> str:
    name = re.sub(r"\W", "_", file.stem)
    return name if name.isidentifier() else f"_{name}"


def _notebook_units(file: PurePosixPath, text: str, module: str, notes: list[str]) -> list[Unit]:
    try:
        notebook = json.loads(text)
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError("its cells are not a list")
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        notes.append(f"{file.name} is not a readable notebook ({error}); it was skipped")
        return []
    metadata = notebook.get("metadata")
    if isinstance(metadata, dict) and QUIZ_METADATA in metadata:
        return []  # a breakout quiz holds answers, not code to grade
    units: list[Unit] = []
    # What the notebook's cells bound from the kit so far: a check imported in its first cell and called in an
    # exercise cell is the kit's there too.
    kit_names: set[str] = set()
    code_cells = (cell for cell in cells if isinstance(cell, dict) and cell.get("cell_type") == "code")
    for number, cell in enumerate(code_cells, start=1):
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        if _is_test_cell(cell):
            continue
        code = without_kit(without_magics(source), kit_names)
        if code is not None:
            units.append(Unit(module, cell_label(file.name, number, source), code))
    return units


def cell_label(notebook: str, number: int, source: str, width: int = 48) -> str:
    """Where a cell is, as a student finds it in Jupyter, which numbers no cell: the notebook, the code cell's
    place among the code cells (markdown is not counted), and its first line."""
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    first = first if len(first) <= width else first[: width - 3] + "..."
    return f'{notebook}, code cell {number} ("{first}")' if first else f"{notebook}, code cell {number}"


def _with_runs(units: list[Unit]) -> None:
    """`%run other.ipynb` (or .py) of a file in the submission brings that file's names, as in Jupyter."""
    modules = {unit.module for unit in units}
    for unit in units:

        def imported(match: re.Match[str], unit: Unit = unit) -> str:
            module = _module_name(PurePosixPath(match.group(1).strip("'\"")))
            if module not in modules or module == unit.module:
                return match.group(0)
            return f"from {module} import *  # %run {match.group(1)}"

        unit.code = RUN_MAGIC.sub(imported, unit.code)


def _is_test_cell(cell: dict[str, object]) -> bool:
    metadata = cell.get("metadata")
    nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    if isinstance(nbgrader, dict) and nbgrader.get("grade") and not nbgrader.get("solution"):
        return True
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return isinstance(tags, list) and DEMO_TAG in tags


def without_magics(source: str) -> str | None:
    """The cell's Python with every IPython-only line replaced by `pass`; None for a non-Python cell."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        if not lines[0].lstrip().startswith(RUNNABLE_CELL_MAGICS):
            return None
        lines[0] = ""
    return "\n".join(
        RUNNABLE_LINE_MAGIC.sub(r"\1\2", line)
        if RUNNABLE_LINE_MAGIC.match(line)
        else _as_pass(line)
        if MAGIC.match(line)
        else line
        for line in lines
    )


def _as_pass(line: str) -> str:
    """`pass` at the line's own indentation keeps an indented block valid; the magic stays as a comment."""
    stripped = line.lstrip()
    return f"{line[: len(line) - len(stripped)]}pass  # {stripped}"


def _owners(units: list[Unit], notes: list[str]) -> dict[str, str]:
    """Which module defines each SPEC name; a finished definition wins over a stub that raises NotImplementedError."""
    found: dict[str, list[tuple[Unit, bool]]] = {}
    for unit in units:
        try:
            tree = ast.parse(unit.code)
        except (SyntaxError, RecursionError, MemoryError):
            continue  # the child reports it, with the line, when it loads the unit
        for node in tree.body:
            for name in _defined_names(node):
                if name in ALL_NAMES:
                    found.setdefault(name, []).append((unit, _is_stub(node)))
    owners = {}
    for name, definitions in found.items():
        finished = [unit for unit, stub in definitions if not stub] or [unit for unit, _ in definitions]
        chosen = finished[-1]
        if len({unit.module for unit, _ in definitions}) > 1:
            notes.append(f"{name} is defined in more than one file; graded: the one in {chosen.label}")
        owners[name] = chosen.module
    return owners


def _defined_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def _is_stub(node: ast.stmt) -> bool:
    """True when every function in the definition only raises NotImplementedError (as the release does)."""
    functions = [n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    stubs = [f for f in functions if f.name != "__init__" and _only_raises_not_implemented(f)]
    return bool(stubs) and len(stubs) == len([f for f in functions if f.name != "__init__"])


def _only_raises_not_implemented(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0])
