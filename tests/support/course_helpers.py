"""Course notebooks for the kit's tests: a kernel Jupyter can find, execution, student submissions."""

import ast
import copy
import json
import os
import shutil
import subprocess
import sys

import nbformat
from nbclient import NotebookClient

from autograder.course import jupyter, notebooks
from autograder.engine.contract import spec
from support.helpers import First, first_in_solution

# The components the course notebooks grade, in the contract's order (the core's, then each extension whose names a
# part teaches as graded exercises), and what a completed set of notebooks scores: the core's 100 and theirs.
NOTEBOOK_COMPONENTS = tuple(c for c in spec.ALL_COMPONENTS if set(c.names) <= notebooks.GRADED.keys())
NOTEBOOK_POINTS = sum(c.points for c in NOTEBOOK_COMPONENTS)


def install_test_kernel(folder):
    """A JUPYTER_PATH folder holding the kit's kernelspec for this Python; returns the environment to use it."""
    jupyter.kernelspec(folder / "kernels")
    # nbgrader runs `alembic` from PATH: with the environment activated, as the README says, it is there.
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return dict(os.environ, JUPYTER_PATH=str(folder), PATH=path)


def execute(path, env):
    """Run a notebook top to bottom in a fresh kernel (its own folder as cwd); returns the executed notebook."""
    return _run(nbformat.read(path, as_version=4), path.parent, env)


def _run(nb, folder, env):
    saved = os.environ.copy()
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=300, allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb


def run_cells(cells, folder, env):
    """Run these code cells in a fresh kernel of the kit's (folder as cwd); returns the executed notebook."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])
    nb.metadata["kernelspec"] = notebooks.KERNELSPEC
    return _run(nb, folder, env)


# Between two notebooks run in one kernel: the names of the one before are gone, as in a fresh kernel.
RESET = "%reset -f"


def execute_one_after_another(paths, env):
    """Run notebooks of one folder top to bottom, one after another in one kernel (their folder as cwd), its
    namespace emptied before each (RESET): a notebook finds none of the names of those before it, though the
    modules they imported stay loaded, torch's among them, whose import is most of a fresh kernel's 2 s.
    Returns {path: the notebook, executed}."""
    combined, spans = nbformat.read(paths[0], as_version=4), {}
    combined.cells = []
    for path in paths:
        combined.cells.append(nbformat.v4.new_code_cell(RESET))
        start = len(combined.cells)
        combined.cells += nbformat.read(path, as_version=4).cells
        spans[path] = (start, len(combined.cells))
    _run(combined, paths[0].parent, env)
    return {path: nbformat.v4.new_notebook(cells=combined.cells[start:end]) for path, (start, end) in spans.items()}


def outputs(nb, kind):
    return [
        (index, output)
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == kind
    ]


def completed(release, source, folder, edits=(), kernel=None):
    """A student's submission: the release notebooks with every exercise cell as the source has it (folder may be
    the release itself, as a student fetched it: its notebooks are rewritten in place).

    edits: (text, replacement) pairs, each text once in one exercise cell of them all, or helpers.First edits of
    the definition an exercise cell holds; kernel: a kernelspec name to put in the notebooks' metadata, as a
    student who switched kernels would.
    """
    folder.mkdir(parents=True, exist_ok=True)
    books = {path.name: json.loads(path.read_text()) for path in sorted(release.glob("*.ipynb"))}
    answers = []
    for name, nb in books.items():
        given = {
            c["metadata"]["nbgrader"]["grade_id"]: c["source"]
            for c in json.loads((source / name).read_text())["cells"]
            if c["metadata"].get("nbgrader", {}).get("solution")
        }
        for cell in nb["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if grade_id in given:
                cell["source"] = given[grade_id]
                answers.append(cell)
    for edit in edits:
        if isinstance(edit, First):
            (cell,) = [c for c in answers if _defines(c["source"], edit.name)]
            cell["source"] = first_in_solution(cell["source"], edit.name, edit.code)
            continue
        old, new = edit
        holding = [c for c in answers for _ in range(c["source"].count(old))]
        assert len(holding) == 1, f"{old!r} occurs {len(holding)} times in the exercise cells"
        holding[0]["source"] = holding[0]["source"].replace(old, new)
    for name, nb in books.items():
        if kernel:
            nb["metadata"]["kernelspec"] = copy.deepcopy(notebooks.KERNELSPEC) | {"name": kernel}
        (folder / name).write_text(json.dumps(nb))
    return folder


def _defines(code, name):
    return any(getattr(node, "name", None) == name for node in ast.parse(code).body)


def notebook_student(folder):
    """Rewrite a completed submission as a student who works in the notebooks' own way would hand it in.

    Every notebook starts with a future import; each exercise cell gets a helper cell with a cell magic
    before it, debug prints, a line magic and its own public check at its end (a self-check line), and, after an
    exercise of SPEC names (not a step towards one, which may come before the attention it would call), a quick
    test that calls the attention of notebook 1, as the notebook's setup cell provides it.
    """
    quick = (
        "x = torch.randn(1, 3, 8)\nout, weights = scaled_dot_product_attention(x, x, x)\n"
        "print('quick test:', tuple(out.shape), weights.sum(-1))"
    )
    for path in sorted(folder.glob("*.ipynb")):
        nb = json.loads(path.read_text())
        cells = [_code_cell("from __future__ import annotations\nprint('notebook', __name__)")]
        for index, cell in enumerate(nb["cells"]):
            if not cell["metadata"].get("nbgrader", {}).get("solution"):
                cells.append(cell)
                continue
            check = next("".join(c["source"]) for c in nb["cells"][index:] if "check_" in "".join(c["source"]))
            cells.append(_code_cell("%%time\nDEBUG = True\n\ndef shape_of(t) -> tuple:\n    return tuple(t.shape)"))
            cell["source"] = f"print('debug: defining')\n%time _ = 1\n{''.join(cell['source'])}\n\n{check}\n"
            graded = any(
                f"def {name}(" in cell["source"] or f"class {name}(" in cell["source"] for name in notebooks.GRADED
            )
            cells += [cell, _code_cell(quick)] if graded else [cell]
        nb["cells"] = cells
        path.write_text(json.dumps(nb))
    return folder


# What students leave in their notebooks besides their work: a plot, a timing, a progress bar, a table, prints.
SCRATCH = [
    "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title('loss')\nplt.show()",
    "%time x = torch.randn(64, 64) @ torch.randn(64, 64)\nprint(x.shape, x.dtype)",
    "from tqdm import tqdm\nfor step in tqdm(range(3)):\n    pass",
    "import pandas as pd\ntable = pd.DataFrame({'step': [1, 2], 'loss': [2.3, 1.9]})\ntable.describe()",
    "import os\nprint(os.getcwd())",
]


def with_scratch_cells(folder):
    """Every notebook of a submission with SCRATCH's cells added at its end."""
    for path in sorted(folder.glob("*.ipynb")):
        nb = json.loads(path.read_text())
        nb["cells"] += [_code_cell(source) for source in SCRATCH]
        path.write_text(json.dumps(nb))
    return folder


def _code_cell(source):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def nbgrader(course_root, env, *args):
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course_root, env=env, capture_output=True, text=True
    )


def new_course(root, env, students, only=None, assignment=notebooks.ASSIGNMENT, duedate=None):
    """A course directory at root with an assignment's source (or only the notebooks named in only), the students and
    the assignment (with its due date, if given) in its gradebook, and the release generated: the README's
    first steps. Returns the release folder."""
    shutil.copy(notebooks.COURSE / "nbgrader_config.py", root)
    shutil.copytree(
        notebooks.COURSE / "source" / assignment,
        root / "source" / assignment,
        ignore=None if only is None else lambda _, names: [n for n in names if n not in only],
    )
    # One import for the class, as the README offers: each nbgrader command costs seconds to start.
    (root / "students.csv").write_text("id\n" + "".join(f"{s}\n" for s in students))
    due = [f"--duedate={duedate}"] if duedate else []
    steps = [
        ("db", "student", "import", "students.csv"),
        ("db", "assignment", "add", assignment, *due),
        ("generate_assignment", assignment, "--force"),
    ]
    for step in steps:
        run = nbgrader(root, env, *step)
        assert run.returncode == 0, f"nbgrader {' '.join(step)}:\n{run.stdout}{run.stderr}"
    return root / "release" / assignment


def cell_scores(root, student):
    """{grade cell: its auto score} of a student's submission, from the course's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(notebooks.ASSIGNMENT, student)
        return {grade.name: grade.auto_score for notebook in submission.notebooks for grade in notebook.grades}
