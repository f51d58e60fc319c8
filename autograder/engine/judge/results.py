"""What grading found: each component's result (its tests, its score, why it scores 0, the likely mistake) and the
submission's report, as the grader prints it. The platforms' results.json are written from it by platforms.py.

A component scores points × (tests passed / tests run), or 0 when its child ran out of time, crashed
or delegated its subject to a library. The integration check is reported and never scored. A report that grades
a course extension gives the core's total and the extensions' apart, besides the whole.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Self

from autograder.engine.contract import spec
from autograder.engine.contract.errors import SCORES_ZERO
from autograder.engine.contract.protocol import visible, visible_name

if TYPE_CHECKING:
    from autograder.engine.judge.run import TestResult

LOADING_NOTE = "while loading your code: "  # a report's note of what went wrong loading the submission
BREAKOUT = "breakout"  # the line of the breakout sheets in a report, and its test in a results.json
SHOWN_FAILURES = 3  # per component in the printed table; the JSON report has them all


@dataclass
class ComponentResult:
    id: str
    points: float  # what it is worth; 0 for the integration check
    tests: "list[TestResult]" = field(default_factory=list)
    fatal: str | None = None  # why it scores 0 (errors.Fatal's reason), if something ended it
    notes: list[str] = field(default_factory=list)
    tag: str | None = None  # the component id it reports under, when it is not its own id
    flags: list[str] = field(default_factory=list)  # why the static check held its code for review (child/scrutiny.py)
    diagnosis: str | None = None  # "Likely mistake: ...", when its outputs are a cataloged mistake's
    accepted: bool = False  # an instructor read the held code and let it run and be scored
    timed_out: bool = False  # its time ran out (CPU, wall clock, the submission's total), as fatal says in words

    @property
    def held(self) -> bool:
        """Held for review, and not yet accepted: it never ran, and scores 0 until an instructor has looked."""
        return bool(self.flags) and not self.accepted

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)

    @property
    def score(self) -> float:
        if self.fatal or self.held or not self.tests:
            return 0.0
        return round(self.points * self.passed / len(self.tests), 2)

    @property
    def status(self) -> str:
        return (
            "passed" if self.tests and self.passed == len(self.tests) and not self.fatal and not self.held else "failed"
        )

    def flag_line(self) -> str | None:
        if not self.flags:
            return None
        verdict = (
            "accepted by the instructor after review, so it ran"
            if self.accepted
            else "it never ran, and scores 0 until an instructor has read it"
        )
        return f"HELD for review ({verdict}): your code uses what grading does not run: " + "; ".join(self.flags)

    def zero_line(self) -> str | None:
        return SCORES_ZERO + self.fatal if self.fatal else None

    def checks(self) -> "dict[str, list[TestResult]]":
        """{test function: [its TestResults]}, in order: each test runs on several cases."""
        groups: dict[str, list[TestResult]] = {}
        for test in self.tests:
            groups.setdefault(test.name.split("[")[0], []).append(test)
        return groups

    def failing(self) -> list[str]:
        """One line per failing test function, with its first failure: the same mistake fails every case of a
        test (both dtypes, every shape), and one example says it. A message already shown is not repeated."""
        lines, shown = [], set()
        for name, tests in self.checks().items():
            failed = [t for t in tests if not t.passed]
            if failed:
                first = failed[0].message
                detail = (
                    "the same way as above" if first in shown or first == self.zero_line() else f"the first: {first}"
                )
                shown.add(first)
                lines.append(f"{name}: {len(failed)} of {len(tests)} cases fail; {detail}")
        return lines

    def feedback(self, limit: int | None = None) -> str:
        lines = [f"{self.passed}/{len(self.tests)} tests passed."]
        if not self.points:  # the integration check: a platform shows it failed, so say first what it is worth
            lines[0] += (
                " Not scored: your whole stack against Hugging Face BERT, for your information; it "
                "changes no points (each component above is graded on its own)."
            )
        if self.diagnosis:
            lines.append(self.diagnosis)
        if flag_line := self.flag_line():
            lines.append(flag_line)
        if (zero_line := self.zero_line()) and not self.held:
            lines.append(zero_line)
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
class Sheet:
    """A breakout sheet of the hand-in, graded beside the code (autograder/breakout/sheets.py): its points are
    reported apart from the code's."""

    name: str  # the bank's part
    score: float
    points: float  # what its autograded questions are worth
    lines: list[str]  # what the student reads: the sheet's score, then each question's verdict
    waiting: float = 0.0  # the points of its short answers, which wait for a person to grade them
    misses: list[str] = field(default_factory=list)  # the first line of each answer that scored nothing, for a table


@dataclass
class Report:
    submission: str
    components: list[ComponentResult]
    notes: list[str]
    seconds: float
    problem: str | None = None  # why it could not be graded at all, if it could not
    grader_failed: bool = False  # the grader itself raised: never the submission's doing
    sheets: list[Sheet] = field(default_factory=list)  # the breakout sheets found beside the code

    @property
    def scored(self) -> list[ComponentResult]:
        return [c for c in self.components if c.id in spec.BY_ID]

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.scored), 2)

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.scored)

    @property
    def extended(self) -> bool:
        """Whether it grades a course extension: only then are the core's and the extensions' totals told apart."""
        return any(spec.BY_ID[c.id].extension for c in self.scored)

    def totals(self) -> dict[str, tuple[float, float]]:
        """{"core": (score, max score), "extensions": (score, max score)}: the core's 100 apart from the rest."""
        parts: dict[str, list[ComponentResult]] = {"core": [], "extensions": []}
        for c in self.scored:
            parts["extensions" if spec.BY_ID[c.id].extension else "core"].append(c)
        return {
            part: (round(sum(c.score for c in results), 2), sum(c.points for c in results))
            for part, results in parts.items()
        }

    @property
    def breakout_score(self) -> float:
        return round(sum(s.score for s in self.sheets), 2)

    @property
    def breakout_points(self) -> float:
        return sum(s.points for s in self.sheets)

    @property
    def breakout_waiting(self) -> float:
        return sum(s.waiting for s in self.sheets)

    def breakout_line(self) -> str:
        """The breakout's score in words: "12 of 14 points in 2 sheets (3 more wait for your instructor)"."""
        waiting = self.breakout_waiting
        return (
            f"{self.breakout_score:g} of {self.breakout_points:g} points in {len(self.sheets)} "
            f"sheet{'s' if len(self.sheets) != 1 else ''}"
            + (f" ({waiting:g} more wait for your instructor to grade short answers by hand)" if waiting else "")
        )

    def breakout_feedback(self) -> str:
        return visible("\n".join(line for sheet in self.sheets for line in sheet.lines), newlines=True)

    @property
    def flags(self) -> list[str]:
        """One line per held component, for the CSV: "multihead: reason; ..."."""
        return [f"{c.id}: {'; '.join(c.flags)}" for c in self.components if c.flags]

    def summary(self) -> str:
        """What concerns the whole submission: its notes, and each held component."""
        return visible("\n".join(self.notes + [f"HELD for review: {flag}" for flag in self.flags]), newlines=True)

    def table(self) -> str:
        lines = [f"Grading {visible_name(self.submission)}", ""]
        if self.components:
            lines.append(f"{'component':<13} {'score':>15}   tests")
        for c in self.components:
            score = f"{c.score:6.2f} / {c.points:<3g}" if c.id in spec.BY_ID else "not scored"
            mark = "HELD" if c.flags else "ok" if c.status == "passed" else "FAILED" if c.fatal or not c.passed else ""
            lines.append(f"{c.id:<13} {score:>15}   {c.passed:>3}/{len(c.tests):<3} {mark}")
        if self.extended:
            lines += [
                f"{part:<13} {f'{score:6.2f} / {points:<3g}':>15}" for part, (score, points) in self.totals().items()
            ]
        if self.components:
            lines.append(f"{'total':<13} {f'{self.score:6.2f} / {self.max_score:<3g}':>15}")
        if self.sheets:  # apart from the code's total: a course weighs the discussions as it chooses
            lines.append(f"{BREAKOUT:<13} {f'{self.breakout_score:6.2f} / {self.breakout_points:<3g}':>15}")
        lines += [f"note: {note}" for note in self.notes]
        for c in self.components:
            if c.status != "passed" or c.flags or c.notes:
                lines += ["", f"[{c.id}] " + c.feedback(SHOWN_FAILURES).replace("\n", "\n  ")]
        if self.sheets:
            lines += ["", f"[{BREAKOUT}] {self.breakout_line()}"]
            lines += [f"  {line}" for sheet in self.sheets for line in [sheet.lines[0], *sheet.misses]]
        lines += ["", f"graded in {self.seconds:.1f} s"]
        return visible("\n".join(lines), newlines=True)

    @classmethod
    def failed(cls, path: str | Path, error: BaseException, seconds: float) -> Self:
        """The report of a grading that raised: 0 for every component, and the reason."""
        components = [ComponentResult(c.id, c.points) for c in spec.COMPONENTS]
        reason = f"grading failed ({type(error).__name__}: {visible(str(error)[:500])}); the score is 0"
        return cls(str(path), components, [reason], seconds, reason, grader_failed=True)
