"""Grading a class: every submission in a folder, on a pool of worker processes, each with its own sandbox."""

import ctypes
import multiprocessing
import multiprocessing.util
import os
import signal
import sys
import time
from collections.abc import Callable, Container, Generator, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from autograder.engine.judge.grade import grade
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.results import Report
from autograder.engine.judge.sandbox import Sandbox

_PathT = TypeVar("_PathT", bound=str | Path)
PR_SET_PDEATHSIG = 1
# What grades one submission, as grade.grade is called: the layers above pass their own (the breakout sheets beside
# the code, breakout/sheets.py's grade_hand_in), a module's function, which a spawned worker imports by its name.
Grader = Callable[..., Report]


def submissions_in(folder: str | Path) -> list[Path]:
    """Each student's submission in a class folder: its subfolders, notebooks and .py files, by name."""
    return sorted(
        p
        for p in Path(folder).iterdir()
        if not p.name.startswith((".", "_")) and (p.is_dir() or p.suffix in (".py", ".ipynb"))
    )


def grade_each(
    paths: Iterable[_PathT],
    device: str = "cpu",
    limits: Limits | None = None,
    accepted: Container[_PathT] = (),
    workers: int | None = None,
    components: Sequence[str] | None = None,
    grader: Grader = grade,
) -> Generator[tuple[_PathT, Report], None, None]:
    """Grade these submissions, on `workers` processes (default: one per core); yields (path, Report)
    in the order they finish.

    Every submission gets its report: one whose grading failed scores 0, with the reason in its notes.
    accepted holds the paths whose held code an instructor has reviewed. Each worker has its own
    sandbox, started once; a single worker grades in this process.
    """
    paths, limits = list(paths), limits or Limits()
    workers = max(1, min(workers or os.cpu_count() or 1, len(paths)))
    if workers == 1:
        sandbox = Sandbox(device, limits)
        try:
            for path in paths:
                yield path, _graded(grader, path, device, limits, sandbox, path in accepted, components)
        finally:
            sandbox.close()
        return
    if limits.jail:
        from autograder.engine.judge import jail

        jail.check(device)  # what to install is said once, here, rather than by every worker
    # spawn: a worker must not inherit the caller's threads and open files (nbgrader's, pytest's).
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(
        workers, multiprocessing.get_context("spawn"), _start_worker, (device, limits, os.getpid())
    )
    try:
        pending = {pool.submit(_grade_in_worker, grader, path, path in accepted, components): path for path in paths}
        for future in as_completed(pending):
            path = pending[future]
            try:
                yield path, future.result()
            except BrokenProcessPool as error:  # a worker was killed from outside (the machine ran out of memory)
                yield path, Report.failed(path, error, 0.0)
    except BaseException:
        # Interrupted (^C, or the caller closed this generator): the gradings under way end now, rather than when they
        # are done, and their jails with their workers (bwrap's --die-with-parent).
        for worker in set(multiprocessing.active_children()) - before:
            worker.kill()
        raise
    finally:
        pool.shutdown(cancel_futures=True)


def _graded(
    grader: Grader,
    path: str | Path,
    device: str,
    limits: Limits,
    sandbox: Sandbox,
    accept_flagged: bool,
    components: Sequence[str] | None,
) -> Report:
    started = time.monotonic()
    try:
        return grader(path, device, limits, components, sandbox, accept_flagged)
    except Exception as error:  # noqa: BLE001 - one submission's failure must not cost the others their grades
        return Report.failed(path, error, time.monotonic() - started)


# This worker process's device and limits, and the sandbox it grades in, once started (_start_worker).
_worker: dict[str, Any] = {}


def _start_worker(device: str, limits: Limits, parent: int) -> None:
    _die_with(parent)
    _worker.update(device=device, limits=limits, sandbox=Sandbox(device, limits))
    # A pool's worker leaves through os._exit, past atexit: this finalizer still runs, and ends the zygote.
    multiprocessing.util.Finalize(None, _worker["sandbox"].close, exitpriority=10)


def _grade_in_worker(
    grader: Grader, path: str | Path, accept_flagged: bool, components: Sequence[str] | None
) -> Report:
    return _graded(grader, path, _worker["device"], _worker["limits"], _worker["sandbox"], accept_flagged, components)


def _die_with(parent: int) -> None:
    """Die when the process that started this worker dies, however it dies (a SIGTERM or SIGKILL runs none of its
    cleanup): a worker left behind would wait for work forever, its zygote and jail with it."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)
