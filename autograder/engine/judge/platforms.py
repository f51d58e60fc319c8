"""The grading platforms' results.json, written from a Report: Gradescope's and PrairieLearn's."""

import json

from autograder.engine.contract.noticed import KIT_REACH, NOT_RUN
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.results import BREAKOUT, LOADING_NOTE, Report

FORMATS = ("gradescope", "prairielearn")


def gradescope(report: Report, visibility: str = "visible") -> dict[str, object]:
    """Gradescope's results.json. visibility is when students see each component's score and feedback
    (visible, after_due_date, after_published or hidden); the summary of the whole is always shown. A report
    that grades a course extension has the core's and the extensions' totals in extra_data, Gradescope's field
    for the kit's own data.

    The breakout sheets are a test of their own, apart from the code's score; a hand-in of sheets alone is
    scored by them."""
    # What the class report acts on, as fields (class_report.py): never found by searching text a student can write.
    extra: dict[str, object] = {
        "problem": report.problem,
        "loading": [note.removeprefix(LOADING_NOTE) for note in report.notes if note.startswith(LOADING_NOTE)],
        "to_read": [note for note in report.notes if KIT_REACH in note or NOT_RUN in note],
    }
    if report.extended:
        extra |= {part: {"score": score, "max_score": points} for part, (score, points) in report.totals().items()}
    score, max_score = _total(report)
    breakout = [
        {
            "name": BREAKOUT,
            "score": report.breakout_score,
            "max_score": report.breakout_points,
            "status": "passed" if report.breakout_score >= report.breakout_points else "failed",
            "output": f"{report.breakout_line()}\n{report.breakout_feedback()}",
            "tags": [BREAKOUT],
            "visibility": visibility,
        }
    ]
    document: dict[str, object] = {
        "score": score,
        "max_score": max_score,
        "execution_time": round(report.seconds, 2),
        "output": report.summary(),
        # What the grader prints is the instructor's log, and the tests already carry the feedback.
        "stdout_visibility": "hidden",
        "extra_data": extra,
        "tests": [
            {
                "name": c.id,
                "score": c.score,
                "max_score": c.points,
                "status": c.status,
                "output": c.feedback(),
                "tags": [c.tag or c.id],
                "visibility": visibility,
                "extra_data": {
                    "held": c.flag_line(),
                    "timed_out": c.zero_line() if c.timed_out else None,
                    "mistake": c.diagnosis.removeprefix(LIKELY_MISTAKE) if c.diagnosis else None,
                },
            }
            for c in report.components
        ]
        + (breakout if report.sheets else []),
    }
    return document


def _total(report: Report) -> tuple[float, float]:
    """(score, max score): the code's, or the sheets' for a hand-in of breakout sheets alone."""
    if report.sheets and not report.components:
        return report.breakout_score, report.breakout_points
    return report.score, report.max_score


def prairielearn(report: Report) -> dict[str, object]:
    """PrairieLearn's external-grader results.json. A submission the grader could not grade is not
    gradable: PrairieLearn then records no score and charges the student no attempt."""
    tests = []
    for c in report.components:
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
    if report.sheets:
        tests.append(
            {
                "name": BREAKOUT,
                "points": report.breakout_score,
                "max_points": report.breakout_points,
                "message": report.breakout_line(),
                "output": report.breakout_feedback(),
            }
        )
    score, max_score = _total(report)
    return {
        "gradable": not report.grader_failed,
        "score": round(score / max_score, 4) if max_score else 0.0,
        "message": report.summary(),
        "output": report.table(),
        "tests": tests,
    }


def results_json(report: Report, platform: str, visibility: str = "visible") -> str:
    """The results.json text for platform, gradescope or prairielearn."""
    document = gradescope(report, visibility) if platform == "gradescope" else prairielearn(report)
    return json.dumps(document, indent=2) + "\n"
