"""One grading run: the submission, the sandbox, and what happened to each component's child."""

from pathlib import Path

from autograder.engine.contract.errors import Fatal, SubmissionError
from autograder.engine.contract.loader import Submission
from autograder.engine.contract.reasons import ZERO
from autograder.engine.judge.handle import LOADING, ChildHandle
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.sandbox import Parsed, Sandbox

HELD = ZERO["held"]


class Grading:
    """What one pytest run grades, and what happened to each component's child.

    The submission is read by the judge and parsed in the jail. Its children share one time budget
    (limits.total); once a child has run out of time while loading the submission, every later one
    would too, and fails at once with the same reason.
    """

    def __init__(
        self,
        path: str | Path,
        device: str,
        limits: Limits | None,
        sandbox: Sandbox | None = None,
        accepted: bool = False,
    ) -> None:
        self.error: str | None = None
        self.accepted = accepted  # an instructor has read the held code: it runs
        self.owns_sandbox = sandbox is None
        self.sandbox = sandbox or Sandbox(device, limits)
        self.limits = self.sandbox.grade_under(limits)
        self.remaining = self.limits.total
        self.load_failure: str | None = None
        self.children: dict[str, ChildHandle] = {}
        self.path = path
        self.read = False
        self.parsed: Parsed | None = None
        self.submission: Submission | None = None
        self.held: dict[str, list[str]] = {}
        self.kernels: dict[str, list[str]] = {}

    def parse(self) -> None:
        """Read the submission, once, in the jail: on the first child, or once the judge needs to know what it defines.
        Not when the grading starts: the zygote imports torch meanwhile, while the judge starts pytest."""
        if self.read:
            return
        self.read = True
        try:
            self.parsed = self.sandbox.parse(self.path)
            if not self.parsed.submission.units:  # every file skipped, or none there: say why, as for an unreadable one
                raise SubmissionError("; ".join(self.parsed.submission.notes) or "it holds no code to grade")
        except (SubmissionError, OSError) as error:
            self.parsed = None
            self.error = str(error)
        self.submission = self.parsed.submission if self.parsed else None
        self.held = self.parsed.held if self.parsed else {}
        self.kernels = self.parsed.kernels if self.parsed else {}

    def child(self, component_id: str) -> ChildHandle:
        self.parse()
        if self.error:
            raise Fatal(ZERO["unreadable"].format(error=self.error))
        if component_id not in self.children:
            if component_id in self.held and not self.accepted:
                child = self.sandbox.failed(component_id, HELD)
            elif self.load_failure or self.remaining <= 0:
                child = self.sandbox.failed(
                    component_id,
                    self.load_failure or ZERO["used up"].format(total=self.limits.total),
                )
                child.timed_out = LOADING  # a loop at import, or the submission's time used up before it began
            else:
                assert self.parsed is not None  # or self.error is set
                child = self.sandbox.start(component_id, self.parsed, self.remaining, self.accepted)
                if child.timed_out == LOADING:
                    self.load_failure = child.fatal
            self.children[component_id] = child
        return self.children[component_id]

    def release(self, component_id: str) -> None:
        """The component is done: its processes die, and its time counts against the submission's."""
        child = self.children[component_id]
        child.close()
        self.remaining -= child.used

    def close(self) -> None:
        for child in self.children.values():
            child.close()
        if self.owns_sandbox:
            self.sandbox.close()
        else:  # a shared sandbox is back under its own limits, for whatever uses it next
            self.sandbox.grade_under(None)
