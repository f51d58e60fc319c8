"""Everything generated, written and checked by one command: `python -m autograder generate`, part by part.

The parts (PARTS), each built on its own:
- stubs: the student stubs (assignments/), from the reference;
- sentences: the "Likely mistake" sentences by the mistake's id (generated/mistake_sentences.json), from the catalog,
  the hints of the notebooks' steps (generated/step_hints.json), from their entries, and the hint ladders of every
  exercise and step under the course's hints setting (generated/hints.json), from the reference (course/stubs.py);
- fixtures:ID: a component's hidden cases, with each cataloged mistake's evidence on them (generated/fixtures/);
- public:ID: the public checks' cases of a component, with the evidence on them, which ship (generated/public_cases/);
- steps: the public cases of the notebooks' steps (generated/public_cases/steps.*);
- course: the course notebooks, source and nbgrader release;
- breakout: the breakout quiz notebooks and the handout, from the question bank.

The built parts (STAMPED) take seconds to minutes each. Each is stamped when written with a hash of what its
values are computed from (engine/authoring/inputs.py) and of its files: `stale()` says in a moment whether either
changed since. The others are rebuilt and compared in seconds.

A part is built in a temporary folder, and a committed file is replaced only where the rebuilt one differs
beyond DRIFT_TOLERANCE (float32's, for the evidence of a mistake that computes in float32): a rebuild leaves
the files whose values are unchanged as they were, byte for byte. Parts are built on a pool of processes, one
per core, each part with one torch thread, so that its values are the same whether it is built alone or beside
others.
"""

import concurrent.futures
import hashlib
import importlib
import json
import multiprocessing
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from autograder.course import PUBLIC_CASES
from autograder.engine.contract import spec
from autograder.engine.judge import hints
from autograder.engine.judge.fixtures import FOLDER as FIXTURES
from autograder.engine.judge.tolerances import tolerance

# float64 BLAS kernels differ between CPUs in the last bits; any real change moves values far more.
DRIFT_TOLERANCE = 1e-12
COMPONENTS = tuple(component.id for component in spec.ALL_COMPONENTS if spec.has_suite(component))
STEPS = "steps"
# Costliest first (a component later in the spec builds on more of the stack), so that a pool ends on short ones.
STAMPED = (*(f"{kind}:{c}" for c in reversed(COMPONENTS) for kind in ("fixtures", "public")), STEPS)
PARTS = ("stubs", "sentences", *STAMPED, "course", "breakout")
STAMPS = spec.GENERATED / "stamps.json"
# The module that writes and compares each part that is not built (but sentences, done here).
WRITERS = {
    "stubs": "autograder.course.stubs",
    "course": "autograder.course.notebooks",
    "breakout": "autograder.breakout.quiz_notebooks",
}


def parts_of(component):
    """What `generate --component` builds: the component's fixtures and public cases, and the sentences table,
    which its catalog feeds."""
    return (f"fixtures:{component}", f"public:{component}", "sentences")


def generate(parts=None, check=False, jobs=None, say=print):
    """Build the parts, each in a temporary folder, on a pool of jobs processes (every core unless given), and
    write what differs from the committed files, or (check) only compare. Without parts: every part, but for
    the built parts whose stamp says they are current (with check, every part). Says each part's progress as it
    ends; stamps each built part that was written, or found current. Returns {part: files that differed}."""
    if parts is None:
        current = [] if check else [part for part in STAMPED if part not in stale([part])]
        if current:
            say(f"current by their stamps, not built: {', '.join(current)}")
        parts = [part for part in PARTS if part not in current]
    if "breakout" in parts and not check:
        from autograder.breakout import bank

        bank.load()  # a malformed question bank stops here, before anything is written
    todo = sorted(dict.fromkeys(parts), key=PARTS.index)
    results = {}
    for done, (part, differ, seconds) in enumerate(_each(todo, check, jobs), 1):
        results[part] = differ
        if part in STAMPED and not (check and differ):
            restamp([part])
        verdict = ("differs: " if check else "wrote ") + ", ".join(differ) if differ else "unchanged"
        say(f"[{done:>{len(str(len(todo)))}}/{len(todo)}] {part:<20} {seconds:6.1f} s  {verdict}")
    return results


def _each(parts, check, jobs):
    """(part, files that differed, seconds) for each part, as each ends."""
    jobs = min(jobs or len(os.sched_getaffinity(0)), len(parts))
    if jobs <= 1:
        yield from (_timed(part, check) for part in parts)
        return
    # Spawned, not forked: a fork of a process that has run torch's thread pool can hang in the child.
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [pool.submit(_timed, part, check) for part in parts]
        try:
            for future in concurrent.futures.as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _timed(part, check):
    start = time.monotonic()
    differ = _run(part, check)
    return part, differ, time.monotonic() - start


def _run(part, check):
    """Build one part; write the files that differ from the committed ones unless check. Returns their names."""
    if part in STAMPED:
        return _run_built(part, check)
    if part == "sentences":
        tables = sentences()
        differ = [path for path, text in tables.items() if _read(path) != text]
        if not check:
            for path in differ:
                path.write_text(tables[path])
        return [path.name for path in differ]
    module = importlib.import_module(WRITERS[part])
    differ = module.drift()
    if differ and not check:
        module.write()
    return differ


def sentences(setting=None):
    """{path: text} of the sentences part's files, under the course's hints setting unless given: with none, no
    step's hint, no component's hint under a failing output and no ladder."""
    from autograder.course import HINTS, stubs
    from autograder.engine.authoring import failure_hints, mistakes, steps

    setting = setting or stubs.hints_setting()
    return {
        hints.MISTAKE_SENTENCES: mistakes.sentences(),
        hints.STEP_HINTS: steps.hints() if setting != "none" else "{}\n",
        hints.FAILURE_HINTS: failure_hints.table(setting),
        HINTS: stubs.hints_table(setting),
    }


def _read(path):
    return path.read_text() if path.exists() else None


def _run_built(part, check):
    with tempfile.TemporaryDirectory() as tmp:
        built = {path.name: path for path in build(part, Path(tmp))}
        committed = folder_of(part)
        differ = [name for name, path in built.items() if not _same(path, committed / name)]
        gone = [path.name for path in files_of(part) if path.name not in built]
        if not check:
            for name in differ:
                shutil.copyfile(built[name], committed / name)
            for name in gone:
                (committed / name).unlink()
        return differ + gone


def build(part, folder):
    """Write a built part's files into folder; returns their paths."""
    import torch

    from autograder.engine.authoring import case_files

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    # Every case seeds its own generators; this makes a part's values the same whatever ran before it here.
    torch.manual_seed(0)
    try:
        if part == STEPS:
            case_files.build_steps(folder)
        else:
            case_files.build(folder, unit(part), public=part.startswith("public:"))
    finally:
        torch.set_num_threads(threads)
    return files_of(part, folder)


def drift(parts=PARTS):
    """Names of generated files, in the given parts, that differ from what generate() writes now."""
    return [name for differ in generate(parts, check=True, jobs=1, say=lambda line: None).values() for name in differ]


def unit(part):
    """What a built part is built from: a component's id, or STEPS."""
    return part.split(":")[-1]


def folder_of(part):
    """Where a built part's files are committed."""
    return FIXTURES if part.startswith("fixtures:") else PUBLIC_CASES


def files_of(part, folder=None):
    return sorted((folder or folder_of(part)).glob(f"{unit(part)}.*"))


def stamp(part):
    """{"inputs": hash, "files": hash} of a built part: what its values are computed from, and what was made."""
    from autograder.engine.authoring import inputs

    files = hashlib.sha256()
    for path in files_of(part):
        files.update(path.name.encode() + b"\0" + path.read_bytes())
    return {"inputs": inputs.digest(unit(part)), "files": files.hexdigest()}


def stale(parts=STAMPED):
    """The built parts whose inputs or files changed since they were written (each stamped then)."""
    recorded = _recorded()
    return [part for part in parts if recorded.get(part) != stamp(part)]


def restamp(parts):
    """Stamp the built parts as they are: only after writing them, or after finding them current."""
    recorded = {**_recorded(), **{part: stamp(part) for part in parts}}
    STAMPS.write_text(json.dumps({p: recorded[p] for p in STAMPED if p in recorded}, indent=1, sort_keys=True) + "\n")


def _recorded():
    return json.loads(STAMPS.read_text()) if STAMPS.exists() else {}


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
    from autograder.engine.authoring.mistakes import BY_ID

    parts = [BY_ID[part] for part in (part.split("~")[0] for part in key.split("+")) if part in BY_ID]
    if any(mistake.in_float32 for mistake in parts):
        allowed = tolerance("float32", parts[0].component)  # an entry's mistakes are all of one component
        return allowed.rtol, allowed.atol
    return DRIFT_TOLERANCE, DRIFT_TOLERANCE


def _same_array(a, b, tolerance):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.allclose(a, b, rtol=tolerance[0], atol=tolerance[1], equal_nan=True)
    return np.array_equal(a, b)
