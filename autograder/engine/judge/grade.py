"""Grade a submission: run the hidden suites in this process, score per component, report.

A component scores points × (tests passed / tests run), or 0 when its child ran out of time, crashed
or delegated its subject to a library. The integration check is reported and never scored.
"""

import json
import multiprocessing
import multiprocessing.util
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from autograder.engine.contract import loader, spec
from autograder.engine.contract.protocol import visible, visible_name
from autograder.engine.judge import fixtures
from autograder.engine.judge.run import run_suites
from autograder.engine.judge.sandbox import Limits, Sandbox
from autograder.engine.judge.session import Grading

SHOWN_FAILURES = 3  # per component in the printed table; the JSON report has them all


@dataclass
class ComponentResult:
    id: str
    points: float  # what it is worth; 0 for the integration check
    tests: list = field(default_factory=list)
    fatal: str | None = None
    notes: list = field(default_factory=list)
    tag: str | None = None  # the component id it reports under, when it is not its own id
    flags: list = field(default_factory=list)  # why the static check held its code for review (child/scrutiny.py)
    diagnosis: str | None = None  # "Likely mistake: ...", when its outputs are a cataloged mistake's
    accepted: bool = False  # an instructor read the held code and let it run and be scored

    @property
    def held(self):
        """Held for review, and not yet accepted: it never ran, and scores 0 until an instructor has looked."""
        return bool(self.flags) and not self.accepted

    @property
    def passed(self):
        return sum(t.passed for t in self.tests)

    @property
    def score(self):
        if self.fatal or self.held or not self.tests:
            return 0.0
        return round(self.points * self.passed / len(self.tests), 2)

    @property
    def status(self):
        return (
            "passed" if self.tests and self.passed == len(self.tests) and not self.fatal and not self.held else "failed"
        )

    def flag_line(self):
        if not self.flags:
            return None
        verdict = (
            "accepted by the instructor after review, so it ran"
            if self.accepted
            else "it never ran, and scores 0 until an instructor has read it"
        )
        return f"HELD for review ({verdict}): your code uses what grading does not run: " + "; ".join(self.flags)

    def checks(self):
        """{test function: [its TestResults]}, in order: each test runs on several cases."""
        groups = {}
        for test in self.tests:
            groups.setdefault(test.name.split("[")[0], []).append(test)
        return groups

    def failing(self):
        """One line per failing test function, with its first failure: the same mistake fails every case of a
        test (both dtypes, every shape), and one example says it. A message already shown is not repeated."""
        lines, shown = [], set()
        for name, tests in self.checks().items():
            failed = [t for t in tests if not t.passed]
            if failed:
                first = failed[0].message
                detail = "the same way as above" if first in shown or first == self.fatal else f"the first: {first}"
                shown.add(first)
                lines.append(f"{name}: {len(failed)} of {len(tests)} cases fail; {detail}")
        return lines

    def feedback(self, limit=None):
        lines = [f"{self.passed}/{len(self.tests)} tests passed."]
        if not self.points:  # the integration check: a platform shows it failed, so say first what it is worth
            lines[0] += (
                " Not scored: your whole stack against Hugging Face BERT, for your information; it "
                "changes no points (each component above is graded on its own)."
            )
        if self.diagnosis:
            lines.append(self.diagnosis)
        if self.flags:
            lines.append(self.flag_line())
        if self.fatal and not self.held:
            lines.append(self.fatal)
        lines += self.notes
        failing = self.failing()
        lines += [f"- {line}" for line in failing[:limit]]
        if limit is not None and len(failing) > limit:
            more = len(failing) - limit
            lines.append(
                f"- and {more} more failing test{'s' if more > 1 else ''} (grade with --json FILE to see every one)"
            )
        # Every part of it came through _text or a suite's message; this is the last line of defence.
        return visible("\n".join(lines), newlines=True)


@dataclass
class Report:
    submission: str
    components: list
    notes: list
    seconds: float
    problem: str | None = None  # why it could not be graded at all, if it could not
    grader_failed: bool = False  # the grader itself raised: never the submission's doing

    @property
    def scored(self):
        return [c for c in self.components if c.id in spec.BY_ID]

    @property
    def score(self):
        return round(sum(c.score for c in self.scored), 2)

    @property
    def max_score(self):
        return sum(c.points for c in self.scored)

    @property
    def flags(self):
        """One line per held component, for the CSV: "multihead: reason; ..."."""
        return [f"{c.id}: {'; '.join(c.flags)}" for c in self.components if c.flags]

    def summary(self):
        """What concerns the whole submission: its notes, and each held component."""
        return visible("\n".join(self.notes + [f"HELD for review: {flag}" for flag in self.flags]), newlines=True)

    def table(self):
        lines = [f"Grading {visible_name(self.submission)}", ""]
        lines.append(f"{'component':<13} {'score':>15}   tests")
        for c in self.components:
            score = f"{c.score:6.2f} / {c.points:<3g}" if c.id in spec.BY_ID else "not scored"
            mark = "HELD" if c.flags else "ok" if c.status == "passed" else "FAILED" if c.fatal or not c.passed else ""
            lines.append(f"{c.id:<13} {score:>15}   {c.passed:>3}/{len(c.tests):<3} {mark}")
        lines.append(f"{'total':<13} {f'{self.score:6.2f} / {self.max_score:<3g}':>15}")
        lines += [f"note: {note}" for note in self.notes]
        for c in self.components:
            if c.status != "passed" or c.flags or c.notes:
                lines += ["", f"[{c.id}] " + c.feedback(SHOWN_FAILURES).replace("\n", "\n  ")]
        lines += ["", f"graded in {self.seconds:.1f} s"]
        return visible("\n".join(lines), newlines=True)

    def gradescope(self, visibility="visible"):
        """Gradescope's results.json. visibility is when students see each component's score and feedback
        (visible, after_due_date, after_published or hidden); the summary of the whole is always shown."""
        return {
            "score": self.score,
            "max_score": self.max_score,
            "execution_time": round(self.seconds, 2),
            "output": self.summary(),
            # What the grader prints is the instructor's log, and the tests already carry the feedback.
            "stdout_visibility": "hidden",
            "tests": [
                {
                    "name": c.id,
                    "score": c.score,
                    "max_score": c.points,
                    "status": c.status,
                    "output": c.feedback(),
                    "tags": [c.tag or c.id],
                    "visibility": visibility,
                }
                for c in self.components
            ],
        }

    def prairielearn(self):
        """PrairieLearn's external-grader results.json. A submission the grader could not grade is not
        gradable: PrairieLearn then records no score and charges the student no attempt."""
        tests = []
        for c in self.components:
            feedback = c.feedback()
            tests.append(
                {
                    "name": c.id,
                    "points": c.score,
                    "max_points": c.points,
                    "message": feedback.splitlines()[0],
                    "output": feedback,
                }
            )
        return {
            "gradable": not self.grader_failed,
            "score": round(self.score / self.max_score, 4) if self.max_score else 0.0,
            "message": self.summary(),
            "output": self.table(),
            "tests": tests,
        }

    def results(self, platform, visibility="visible"):
        """The results.json text for platform, gradescope or prairielearn."""
        document = self.gradescope(visibility) if platform == "gradescope" else self.prairielearn()
        return json.dumps(document, indent=2) + "\n"

    @classmethod
    def failed(cls, path, error, seconds):
        """The report of a grading that raised: 0 for every component, and the reason."""
        components = [ComponentResult(c.id, c.points) for c in spec.COMPONENTS]
        reason = f"grading failed ({type(error).__name__}: {visible(str(error)[:500])}); the score is 0"
        return cls(str(path), components, [reason], seconds, reason, grader_failed=True)


def grade(path, device="cpu", limits=None, components=None, sandbox=None, accept_flagged=False):
    """Grade one submission; components limits the run to those ids (the integration check included).

    A sandbox may be shared between submissions (grade_each does): its zygote is started once.
    accept_flagged runs and scores the code the static check held, once an instructor has read it.
    """
    started = time.monotonic()
    ids = list(components) if components else [c.id for c in spec.COMPONENTS] + [spec.INTEGRATION]
    # Started before pytest, so that the zygote imports torch while pytest starts up.
    grading = Grading(path, device, limits, sandbox, accept_flagged)
    try:
        outcomes = run_suites(ids, grading)
    finally:
        grading.close()
    unsafe = grading.limits.unsafe_note()
    notes = [unsafe] if unsafe else []
    notes += list(grading.submission.notes) if grading.submission else []
    problem = f"the submission could not be read: {grading.error}" if grading.error else None
    if problem:
        notes.append(problem)
    results = []
    for i in ids:
        child = grading.children.get(i)
        component = ComponentResult(
            i,
            spec.BY_ID[i].points if i in spec.BY_ID else 0,
            outcomes[i],
            flags=grading.held.get(i, []),
            accepted=accept_flagged,
        )
        kernels = grading.kernels.get(i, [])
        if child is not None:
            component.fatal = child.fatal
            if kernels and (child.delegated or child.unwatched):
                component.fatal += " (named at " + "; ".join(k.split(": ")[0] for k in kernels) + ")"
            elif kernels and child.spread:
                component.fatal = (
                    "scores 0: it names " + "; ".join(kernels) + ", which this part may not delegate to, "
                    "and ran code in other threads or processes, where the grader cannot see whether it ran"
                )
            elif kernels and not child.fatal:
                component.notes += [
                    f"warning: {k}, which this part may not delegate to; it never ran while this part "
                    "was graded, so the score stands (it would score 0 if it ran)"
                    for k in kernels
                ]
            if i in spec.BY_ID and not child.fatal and not all(o.passed for o in child.observations):
                component.diagnosis = fixtures.evidence_of(i).diagnose(i, child.observations)
            # Every child loads the whole submission, so what went wrong there is said once, for all.
            notes += [f"while loading your code: {p}" for p in child.problems]
            wanted = spec.BY_ID[i].names if i in spec.BY_ID else ()
            missing = [name for name in wanted if name not in child.defined]
            if missing and not child.fatal:
                component.notes.append(f"not found in your submission: {', '.join(missing)}")
        results.append(component)
    return Report(str(path), results, loader.distinct(notes), time.monotonic() - started, problem)


def submissions_in(folder):
    """Each student's submission in a class folder: its subfolders, notebooks and .py files, by name."""
    return sorted(
        p
        for p in Path(folder).iterdir()
        if not p.name.startswith((".", "_")) and (p.is_dir() or p.suffix in (".py", ".ipynb"))
    )


def grade_each(paths, device="cpu", limits=None, accepted=(), workers=None, components=None):
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
                yield path, _graded(path, device, limits, sandbox, path in accepted, components)
        finally:
            sandbox.close()
        return
    if limits.jail:
        from autograder.engine.judge import jail

        jail.check(device)  # what to install is said once, here, rather than by every worker
    # spawn: a worker must not inherit the caller's threads and open files (nbgrader's, pytest's).
    pool = ProcessPoolExecutor(workers, multiprocessing.get_context("spawn"), _start_worker, (device, limits))
    try:
        pending = {pool.submit(_grade_in_worker, path, path in accepted, components): path for path in paths}
        for future in as_completed(pending):
            path = pending[future]
            try:
                yield path, future.result()
            except BrokenProcessPool as error:  # a worker was killed from outside (the machine ran out of memory)
                yield path, Report.failed(path, error, 0.0)
    finally:
        pool.shutdown(cancel_futures=True)


def _graded(path, device, limits, sandbox, accept_flagged, components):
    started = time.monotonic()
    try:
        return grade(path, device, limits, components, sandbox, accept_flagged)
    except Exception as error:  # noqa: BLE001 - one submission's failure must not cost the others their grades
        return Report.failed(path, error, time.monotonic() - started)


_worker = {}


def _start_worker(device, limits):
    _worker.update(device=device, limits=limits, sandbox=Sandbox(device, limits))
    # A pool's worker leaves through os._exit, past atexit: this finalizer still runs, and ends the zygote.
    multiprocessing.util.Finalize(None, _worker["sandbox"].close, exitpriority=10)


def _grade_in_worker(path, accept_flagged, components):
    return _graded(path, _worker["device"], _worker["limits"], _worker["sandbox"], accept_flagged, components)
