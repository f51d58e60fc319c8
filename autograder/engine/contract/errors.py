"""Whose fault it is: every error the kit raises derives from one of two bases.

A StudentFault is the submission's: it is reported to the student and costs them what the contract says. A KitFault
is the kit's or its installation's (no jail here, a question file that does not parse, the suites that would not
run): no student is scored for it, and every entry point prints its one line and exits with status 2.

The whole tree. A class below the two roots exists because some code catches it by its name or tells it apart
from its siblings; one that would only carry a message is its root (or StudentError) with that message. Each lives
where its callers catch it:

    StudentFault
        StudentError (also an AssertionError)   here: a test failed on the student's code, a check's mistake
            Fatal                               here: the component scores 0 (the reason)
        SubmissionError                         here: the path is no submission
        protocol.ProtocolError, Timeout, Closed contract/protocol.py: what the child sent, or did not
        tripwire.Forbidden, Unwatched           child/tripwire.py: a delegation the child reports by kind
        allowed.Refused                         child/allowed.py: an attribute or import refused where it ran (the
                                                student reads its name: "Refused: ...")
        public.NotStarted (NotImplementedError) course/public.py: a stub, which the progress report tells apart
        public.Failed (AssertionError)          course/public.py: a component's public checks, with their counts
    KitFault
        jail.JailUnavailable                    judge/jail.py: no jail here, and what to install
        questions.BankError (ValueError)        breakout/questions.py: a question file, by file and question

A StudentFault shows in a notebook as its one line (IPython's _render_traceback_ hook), never the kit's frames that
raised it. quiz.Quit and its Interrupted are no errors: they end the terminal quiz, and it tells them apart.
"""


class StudentFault(Exception):
    """The submission's doing: a message the student reads."""

    def _render_traceback_(self) -> list[str]:
        """IPython's hook, which a notebook shows in place of the traceback: the message alone, since the frames
        are the kit's (a check that raised it), where a student reads that the grader crashed. The cell fails."""
        return [f"{type(self).__name__}: {self}"]


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
