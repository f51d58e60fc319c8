"""Whose fault it is: every error the kit raises derives from one of two bases.

A StudentFault is the submission's: it is reported to the student and costs them what the contract says. A KitFault
is the kit's or its installation's (no jail here, a question file that does not parse, the suites that would not
run): no student is scored for it, and every entry point prints its one line and exits with status 2.
"""


class StudentFault(Exception):
    """The submission's doing: a message the student reads."""


class KitFault(Exception):
    """The kit's or its installation's doing: never recorded as a student's zero."""


class StudentError(StudentFault, AssertionError):
    """Student code failed the current test: an exception, a wrong result. An AssertionError, so that pytest
    counts it as the test failing, not as the grader's error."""


SCORES_ZERO = "scores 0: "


class Fatal(StudentError):
    """Student code ended its component, which scores 0: a timeout, a crash, a forbidden delegation.

    reason says why; the message the student reads is "scores 0: " and the reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(SCORES_ZERO + reason)
        self.reason = reason


class SubmissionError(StudentFault):
    """The path cannot be read as a submission at all."""


class GraderError(KitFault):
    """The kit itself could not grade (its suites did not run, its sandbox did not start)."""
