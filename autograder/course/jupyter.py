"""What the course notebooks call: the student's earlier parts, the hidden grading cell, the kernel.

Nothing here is secret: the hidden cell runs the kit's grader in a separate process, which finds the
hidden suites only where the full kit is installed (the instructor's machine).
"""

import inspect
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.engine.child import runtime
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import KitFault

KERNEL_NAME = "transformers-kit"
KERNEL_DISPLAY_NAME = "Python (transformers kit)"
# The kernel's first lines, before anything is imported: the kit is the one in the notebook's own folder or the
# nearest above it (a bundle's autograder/ beside transformer/), so that a second copy of the bundle grades with
# its own code; the installing copy (the kernelspec's PYTHONPATH) is the fallback for a notebook outside any. The
# working directory leaves sys.path while the kernel loads, as ipykernel_launcher does.
FIND_KIT = (
    "import sys; from pathlib import Path; here = Path.cwd(); "
    "sys.path[:] = [p for p in sys.path if p not in ('', str(here))]; "
    "kits = [p for p in (here, *here.parents) if (p / 'autograder' / 'notebook.py').is_file()]; "
    "sys.path[:0] = [str(kits[0])] if kits else []"
)
LAUNCH = FIND_KIT + "; from ipykernel import kernelapp; kernelapp.launch_new_instance()"


def load_names(*paths):
    """The SPEC names these submissions define, loaded in this process: ({name: object}, [problems]).

    Every module gets every name found, as the grader's child does, so a class in one notebook finds
    the student's classes from another. For the student's own loop only: it runs their code here.
    """
    units: list[dict[str, object]] = []
    owners: dict[str, str] = {}
    notes: list[str] = []
    for path in paths:
        submission = loader.load(path)
        units += [vars(unit) for unit in submission.units]  # as Submission.as_message() sends them
        owners.update(submission.owners)
        notes += submission.notes
    modules, problems = runtime.load_modules(units, shared_names=spec.ALL_NAMES)
    found = runtime.collect(modules, owners, spec.ALL_NAMES)
    runtime.patch_names(modules, found)
    return found, notes + problems


def use_notebooks(namespace, *notebooks):
    """Bring the SPEC names of these notebooks (next to the current one) into a notebook's namespace."""
    found, problems = load_names(*notebooks)
    for problem in problems:
        print(f"note: {problem}")
    namespace.update(found)
    stubs = sorted(name for name, obj in found.items() if unwritten_at(obj))
    written = sorted(set(found) - set(stubs))
    said = (["using your " + ", ".join(written)] if written else []) + (
        [f"not written yet: {', '.join(stubs)} (still the stub that raises NotImplementedError)"] if stubs else []
    )
    print("; ".join(said) or "nothing found in " + ", ".join(notebooks))


def unwritten_at(obj):
    """Where obj is still the release's stub (a function, or a class with a method, that raises
    NotImplementedError: the stub's own body; the course's finished code never raises it): the notebook and
    cell it came from, or None once it is written."""
    stub = next((code for code in codes(obj) if "NotImplementedError" in code.co_names), None)
    return stub.co_filename if stub else None


def codes(obj):
    """The code objects of a function, or of a class's methods, nested functions and lambdas included; a decorated
    one's own (beam_search's under @torch.no_grad(), not the decorator's wrapper)."""
    functions = [obj] if callable(obj) and hasattr(obj, "__code__") else []
    if isinstance(obj, type):
        functions = [getattr(v, "__func__", v) for v in vars(obj).values()]
    functions = [inspect.unwrap(f) if callable(f) else f for f in functions]
    pending, found = [f.__code__ for f in functions if hasattr(f, "__code__")], []
    while pending:
        found.append(pending.pop())
        pending += [c for c in found[-1].co_consts if hasattr(c, "co_names")]
    return found


def grade_here(component_id, notebook):
    """The hidden test cell: grade one component of this notebook (the saved file) with the kit's grader.

    For an instructor running a source notebook in Jupyter: `nbgrader autograde` never runs this cell,
    since the kit's autograde step grades in its place (autograder/nbgrader/grades.py). Returns the score after
    printing the feedback; a score of 0 goes to fail_cell. Only the feedback reaches this cell's output.
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        kit_failed(
            "nbgrader ran the notebook in a kernel, where student code runs unjailed and can change "
            "this cell's verdict: put the kit's step in nbgrader_config.py, as course/nbgrader_config.py does"
        )
    with tempfile.TemporaryDirectory() as tmp:
        report_file = Path(tmp) / "results.json"
        command = [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            notebook,
            "--component",
            component_id,
            "--json",
            str(report_file),
        ]
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(spec.KIT_ROOT), os.environ.get("PYTHONPATH")]))
        )
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        if run.returncode or not report_file.exists():
            kit_failed(f"the grader exited with code {run.returncode}:\n{run.stdout}{run.stderr}")
        report = json.loads(report_file.read_text())
    result = next(t for t in report["tests"] if t["tags"] == [component_id])
    text = cell_text(component_id, result["score"], result["output"], report.get("output", ""))
    if result["score"] <= 0:
        return fail_cell(text)
    print(text)
    return result["score"]


def cell_text(component_id, score, feedback, notes=""):
    """What a component's grade cell shows: the hidden cell's, and the kit's autograde step's."""
    return f"{component_id}: {score:g} of {spec.BY_ID[component_id].points:g} points.\n{feedback}" + (
        f"\n{notes}" if notes else ""
    )


def fail_cell(feedback):
    """Give a hidden test cell 0 points with this feedback, and no traceback.

    nbgrader gives 0 to a cell that writes to stderr. Raising would too, but IPython's traceback quotes
    the cell's source lines, hidden tests included, and nbgrader's feedback keeps the cell's outputs
    (ClearHiddenTests clears only its source), so the student would read the hidden test.
    """
    sys.stdout.flush()
    sys.stderr.write(feedback.rstrip() + "\n")
    sys.stderr.flush()


def kit_failed(reason):
    """Stop loudly, rather than let nbgrader record a grade.

    Under `nbgrader autograde` an exception would only fail the cell (a silent zero for every student),
    so the kernel exits: nbgrader then reports the submission as failed and records no grade.
    """
    message = f"THE KIT COULD NOT GRADE THIS CELL (not the student's fault): {reason}"
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        # The kernel's own stderr is nbgrader's: the reason lands in the instructor's terminal.
        if sys.__stderr__ is not None:
            sys.__stderr__.write(message + "\n")
            sys.__stderr__.flush()
        os._exit(3)
    raise KitFault(message)


def kernelspec(directory, python=sys.executable, kit_root=spec.KIT_ROOT):
    """Write the kit's kernelspec into directory/transformers-kit: this Python, with the kit importable.

    The course notebooks ask for this kernel by name, so nbgrader runs them with the environment that
    has torch and the kit, never with whatever `python3` kernel the machine has.
    """
    folder = Path(directory) / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-c", LAUNCH, "-f", "{connection_file}"],
                "display_name": KERNEL_DISPLAY_NAME,
                "language": "python",
                "env": {"PYTHONPATH": str(kit_root)},
                "metadata": {"debugger": True},
            },
            indent=1,
        )
        + "\n"
    )
    return folder


def install_kernel(user=False):
    """Install the kernelspec where Jupyter looks: this environment's share/jupyter (or the user's)."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as tmp:
        source = kernelspec(tmp)
        return KernelSpecManager().install_kernel_spec(
            str(source), KERNEL_NAME, user=user, prefix=None if user else sys.prefix, replace=True
        )
