"""Everything generated from the reference, written and checked by one command: `python -m autograder generate`.

The student stubs, the hidden suites' fixtures, the course notebooks (source and nbgrader release), and
the breakout quiz notebooks and handout made from the question bank.
"""
import tempfile
from pathlib import Path

import numpy as np

from autograder import breakout, breakout_notebooks, course, stubs
from autograder.fixtures import HERE as FIXTURES

# float64 BLAS kernels differ between CPUs in the last bits; any real change moves values far more.
DRIFT_TOLERANCE = 1e-12


def write():
    from autograder.fixtures.build import build

    parts = breakout.load()  # a malformed question bank stops here, before anything is written
    stubs.write()
    build(FIXTURES)
    course.write()
    breakout_notebooks.write(parts)


def drift():
    """Names of generated files that differ from what write() produces now."""
    from autograder.fixtures.build import build

    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        changed = [p.name for p in sorted(Path(tmp).iterdir()) if not _same(p, FIXTURES / p.name)]
    return stubs.drift() + changed + course.drift() + breakout_notebooks.drift()


def _same(built, committed):
    if not committed.exists():
        return False
    if built.suffix != ".npz":
        return built.read_bytes() == committed.read_bytes()
    # npz files carry zip timestamps, so their arrays are compared, not their bytes.
    with np.load(built, allow_pickle=False) as x, np.load(committed, allow_pickle=False) as y:
        return sorted(x.files) == sorted(y.files) and all(_same_array(x[k], y[k]) for k in x.files)


def _same_array(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.allclose(a, b, rtol=DRIFT_TOLERANCE, atol=DRIFT_TOLERANCE)
    return np.array_equal(a, b)
