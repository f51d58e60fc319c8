"""Everything generated from the reference, written and checked by one command: `python -m autograder generate`.

The student stubs, the hidden suites' fixtures with each cataloged mistake's evidence, the public checks'
evidence, the course notebooks (source and nbgrader release), and the breakout quiz notebooks and handout
made from the question bank. Each part can be checked on its own, so that the kit's tests check them side
by side.
"""
import tempfile
from pathlib import Path

import numpy as np

from autograder.breakout import bank, quiz_notebooks
from autograder.course import PUBLIC_EVIDENCE, notebooks, stubs
from autograder.engine.contract import spec
from autograder.engine.judge.fixtures import HERE as FIXTURES
from autograder.engine.judge.tolerances import TOLERANCES

# float64 BLAS kernels differ between CPUs in the last bits; any real change moves values far more.
DRIFT_TOLERANCE = 1e-12
PARTS = ("stubs", *(f"fixtures:{c.id}" for c in spec.COMPONENTS), "public mistakes", "course", "breakout")


def write():
    from autograder.course import public_evidence
    from autograder.engine.build.fixtures import build

    parts = bank.load()  # a malformed question bank stops here, before anything is written
    stubs.write()
    build(FIXTURES)
    public_evidence.build()
    notebooks.write()
    quiz_notebooks.write(parts)


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
    from autograder.course import public_evidence
    from autograder.engine.build.fixtures import build

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if part == "public mistakes":
            public_evidence.build(tmp / PUBLIC_EVIDENCE.name)
            committed = PUBLIC_EVIDENCE.parent
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
    entry with a mistake that computes in float32 (an entry's key is its mistakes' ids joined by '+')."""
    from autograder.engine.build.mistakes import BY_ID

    if any(BY_ID[part].in_float32 for part in key.split("+") if part in BY_ID):
        return TOLERANCES["float32"].rtol, TOLERANCES["float32"].atol
    return DRIFT_TOLERANCE, DRIFT_TOLERANCE


def _same_array(a, b, tolerance):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.allclose(a, b, rtol=tolerance[0], atol=tolerance[1], equal_nan=True)
    return np.array_equal(a, b)
