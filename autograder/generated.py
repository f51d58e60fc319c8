"""Everything generated from the reference, written and checked by one command: `python -m autograder generate`.

The student stubs, the hidden suites' cases and the public checks' cases, each with every cataloged
mistake's evidence on them, the course notebooks (source and nbgrader release), and the breakout quiz
notebooks and handout made from the question bank. Each part can be checked on its own, so that the kit's tests check them side
by side.

The built parts (fixtures and evidence) take minutes to rebuild. Each is stamped when it is written with a hash
of its inputs (the reference, the kit modules its builder imports, the pins) and of its files: `stale()` says
in a moment whether either changed since; `drift()` rebuilds and compares, as `make drift` does.
"""

import ast
import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from autograder.breakout import bank, quiz_notebooks
from autograder.course import PUBLIC_CASES, notebooks, stubs
from autograder.engine.contract import spec
from autograder.engine.judge.fixtures import HERE as FIXTURES
from autograder.engine.judge.tolerances import TOLERANCES

# float64 BLAS kernels differ between CPUs in the last bits; any real change moves values far more.
DRIFT_TOLERANCE = 1e-12
PARTS = ("stubs", *(f"fixtures:{c.id}" for c in spec.COMPONENTS), "public cases", "course", "breakout")
# The parts built by running the reference, by the module that builds them.
BUILT = {
    **{f"fixtures:{c.id}": "autograder.engine.build.fixtures" for c in spec.COMPONENTS},
    "public cases": "autograder.engine.build.fixtures",
}
STAMPS = spec.KIT_ROOT / "autograder" / "stamps.json"


def write():
    from autograder.engine.build.fixtures import build

    parts = bank.load()  # a malformed question bank stops here, before anything is written
    stubs.write()
    build(FIXTURES)
    build(PUBLIC_CASES, public=True)
    notebooks.write()
    quiz_notebooks.write(parts)
    restamp()


def restamp():
    """Stamp the built parts as they are: only after writing them, or after drift() found them current."""
    STAMPS.write_text(json.dumps({part: stamp(part) for part in BUILT}, indent=1, sort_keys=True) + "\n")


def stale(parts=tuple(BUILT)):
    """The built parts whose inputs or files changed since they were written (each stamped then)."""
    recorded = json.loads(STAMPS.read_text()) if STAMPS.exists() else {}
    return [part for part in parts if recorded.get(part) != stamp(part)]


def stamp(part):
    """{"inputs": hash, "files": hash} of a built part: what it is made from, and what was made."""
    # The graded components' references alone: no fixture reads the ungraded exercises' (course/exercises/).
    references = sorted(component.reference for component in spec.COMPONENTS)
    inputs = [*references, spec.KIT_ROOT / "requirements.txt", *_modules_of(BUILT[part])]
    return {"inputs": _digest(inputs), "files": _digest(_files_of(part))}


def _files_of(part):
    if part == "public cases":
        return sorted(PUBLIC_CASES.glob("*.*"))
    return sorted(FIXTURES.glob(f"{part.removeprefix('fixtures:')}.*"))


def _digest(paths):
    digest = hashlib.sha256()
    for path in paths:
        digest.update(os.path.relpath(path, spec.KIT_ROOT).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _modules_of(module):
    """The files of a kit module and of every kit module it imports, transitively, read from their imports
    (inside functions too, where builders import lazily)."""
    found, pending = {}, [module]
    while pending:
        name = pending.pop()
        path = spec.KIT_ROOT / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = path.with_suffix("") / "__init__.py"
        if name in found or not path.exists():
            continue
        found[name] = path
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                pending += [alias.name for alias in node.names if alias.name.startswith("autograder")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder"):
                pending += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return sorted(found.values())


def drift(parts=PARTS):
    """Names of generated files, in the given parts, that differ from what write() produces now."""
    changed = []
    for part in parts:
        if part == "stubs":
            changed += stubs.drift()
        elif part == "course":
            changed += notebooks.drift()
        elif part == "breakout":
            changed += quiz_notebooks.drift()
        else:
            changed += _built_drift(part)
    return changed


def _built_drift(part):
    from autograder.engine.build.fixtures import build

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if part == "public cases":
            build(tmp, public=True)
            committed = PUBLIC_CASES
        else:
            build(tmp, [part.removeprefix("fixtures:")])
            committed = FIXTURES
        return [p.name for p in sorted(tmp.iterdir()) if not _same(p, committed / p.name)]


def _same(built, committed):
    if not committed.exists():
        return False
    if built.suffix != ".npz":
        return built.read_bytes() == committed.read_bytes()
    # npz files carry zip timestamps, so their arrays are compared, not their bytes.
    with np.load(built, allow_pickle=False) as x, np.load(committed, allow_pickle=False) as y:
        return sorted(x.files) == sorted(y.files) and all(_same_array(x[k], y[k], _tolerance(k)) for k in x.files)


def _tolerance(key):
    """How far an array may move between CPUs: DRIFT_TOLERANCE, or float32's tolerance for the evidence of an
    entry with a mistake that computes in float32 (an entry's key is its mistakes' ids joined by '+', a family's
    member's its mistake's id and '~' its variant)."""
    from autograder.engine.build.mistakes import BY_ID

    mistake_ids = [part.split("~")[0] for part in key.split("+")]
    if any(BY_ID[part].in_float32 for part in mistake_ids if part in BY_ID):
        return TOLERANCES["float32"].rtol, TOLERANCES["float32"].atol
    return DRIFT_TOLERANCE, DRIFT_TOLERANCE


def _same_array(a, b, tolerance):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.allclose(a, b, rtol=tolerance[0], atol=tolerance[1], equal_nan=True)
    return np.array_equal(a, b)
