"""Grade a submission: run the hidden suites in this process on its children, and score each component
(results.py). Grading a class is pool.py's; the platforms' results.json, platforms.py's.
"""

import time
from collections.abc import Sequence
from pathlib import Path

from autograder.engine.contract import loader, noticed, spec
from autograder.engine.contract.reasons import DELEGATION
from autograder.engine.judge import fixtures
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.results import LOADING_NOTE, ComponentResult, Report
from autograder.engine.judge.run import TestResult, run_suites
from autograder.engine.judge.sandbox import Sandbox
from autograder.engine.judge.session import Grading


def grade(
    path: str | Path,
    device: str = "cpu",
    limits: Limits | None = None,
    components: Sequence[str] | None = None,
    sandbox: Sandbox | None = None,
    accept_flagged: bool = False,
) -> Report:
    """Grade one submission; components limits the run to those ids (the integration check included), which
    are otherwise the core, the extensions it defines a name of, and the integration check.

    A sandbox may be shared between submissions (grade_each does), and by gradings under limits other than its
    own (limits; None: the sandbox's): its zygote is started once.
    accept_flagged runs and scores the code the static check held, once an instructor has read it.
    """
    started = time.monotonic()
    # Started before pytest, so that the zygote imports torch while pytest collects the suites: those of every
    # component the submission could have, until it is read (which waits for the zygote) and says which it has.
    grading = Grading(path, device, limits, sandbox, accept_flagged)

    def chosen() -> list[str]:
        grading.parse()
        return (
            list(components)
            if components
            else spec.graded_by_default(grading.submission.owners if grading.submission else {})
        )

    try:
        outcomes = run_suites(
            list(components) if components else spec.graded_by_default(spec.ALL_NAMES), grading, chosen=chosen
        )
        ids = chosen()
    finally:
        grading.close()
    unsafe = grading.limits.unsafe_note()
    notes = [unsafe] if unsafe else []
    notes += list(grading.submission.notes) if grading.submission else []
    notes += noticed.kit_reaches(path) if grading.submission else []
    problem = f"the submission could not be read: {grading.error}" if grading.error else None
    if problem:
        notes.append(problem)
    results = []
    for i in ids:
        results.append(_component(i, grading, outcomes[i], accept_flagged))
        child = grading.children.get(i)
        # Every child loads the whole submission, so what went wrong there is said once, for all.
        notes += [f"{LOADING_NOTE}{p}" for p in child.problems] if child is not None else []
    return Report(str(path), results, loader.distinct(notes), time.monotonic() - started, problem)


def _component(i: str, grading: Grading, outcome: list[TestResult], accept_flagged: bool) -> ComponentResult:
    """One component's result: its suite's outcome, and what its child saw."""
    child = grading.children.get(i)
    component = ComponentResult(
        i,
        spec.BY_ID[i].points if i in spec.BY_ID else 0,
        outcome,
        flags=grading.held.get(i, []),
        accepted=accept_flagged,
    )
    if child is None:
        return component
    kernels = grading.kernels.get(i, [])
    component.fatal, component.timed_out = child.fatal, child.timed_out is not None
    # Code that ran in other threads or processes is said first: what the tripwire saw of it in this one (the backward
    # pass of a kernel a thread ran) is only part of it.
    if kernels and child.spread:
        component.fatal = DELEGATION["any"]["spread"].format(kernels="; ".join(kernels))
    elif kernels and child.fatal and (child.delegated or child.unwatched):
        component.fatal = child.fatal + DELEGATION["any"]["named at"].format(
            where="; ".join(k.split(": ")[0] for k in kernels)
        )
    elif kernels and not child.fatal:
        component.notes += [DELEGATION["any"]["never ran"].format(kernel=k) for k in kernels]
    if i in spec.BY_ID and not child.fatal and not all(o.passed for o in child.observations):
        component.diagnosis = fixtures.evidence_of(i).diagnose(i, child.observations)
    wanted = spec.BY_ID[i].names if i in spec.BY_ID else ()
    missing = [name for name in wanted if name not in child.defined]
    if missing and not child.fatal:
        component.notes.append(f"not found in your submission: {', '.join(missing)}")
    return component
