"""The grading platforms' results.json, written from a Report: Gradescope's and PrairieLearn's."""

import json

from autograder.engine.judge.results import BREAKOUT, Report

FORMATS = ("gradescope", "prairielearn")


def gradescope(report: Report, visibility: str = "visible") -> dict[str, object]:
    """Gradescope's results.json. visibility is when students see each component's score and feedback
    (visible, after_due_date, after_published or hidden); the summary of the whole is always shown.

    The breakout sheets are a test of their own, apart from the code's score; a hand-in of sheets alone is
    scored by them."""
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
    return {
        "score": score,
        "max_score": max_score,
        "execution_time": round(report.seconds, 2),
        "output": report.summary(),
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
            for c in report.components
        ]
        + (breakout if report.sheets else []),
    }


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
