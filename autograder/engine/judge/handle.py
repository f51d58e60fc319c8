"""The judge's handle on one component's child: the suites' requests sent, the answers awaited within the
component's time, and whatever ends the child (a timeout, a crash, a forbidden delegation) made its reason to
score 0 (errors.Fatal). The child's processes are counted and bounded by the sandbox's watchdog."""

import select
import socket
import time
from typing import Any, NoReturn

from autograder.engine.contract import loader, messages, protocol, spec
from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.contract.reasons import ZERO
from autograder.engine.judge.diagnosis import Observation
from autograder.engine.judge.limits import wall_limit
from autograder.engine.judge.replies import text, texts
from autograder.engine.judge.seams import Built
from autograder.engine.judge.watchdog import WATCH_EVERY, Watchdog

LOADING = "loading your submission"


class ChildHandle(messages.Requests):
    """A component's child, over sock; with no socket, one that never ran and fails every request with fatal."""

    def __init__(
        self,
        watchdog: Watchdog,
        sock: socket.socket | None,
        component_id: str,
        time_limit: float,
        fatal: str | None = None,
    ) -> None:
        self.watchdog = watchdog
        self.sock = sock
        self.component_id = component_id
        self.time_limit = time_limit  # CPU seconds
        self.wall_limit = wall_limit(time_limit)  # seconds it may sleep or block while an answer is awaited
        self.cpu: dict[tuple[int, str], float] = {}  # {(pid, start time): CPU seconds} of its processes seen so far
        self.delay: dict[tuple[int, str], float] = {}  # {(pid, start time): seconds it waited for a CPU}, likewise
        self.awaited = 0.0  # wall-clock seconds the judge has spent awaiting its answers
        self.counted = time.monotonic()  # when self.cpu was last brought up to date
        self.fatal = fatal  # why this component scores 0 (errors.Fatal's reason), once something ended it
        self.killed: str | None = None  # why the watchdog killed its processes, if it did
        self.delegated = False  # its tripwire saw a library kernel of its subject run
        self.unwatched = False  # its tripwire refused code that would have run where it cannot watch
        self.spread = False  # its code ran in other threads or processes, which the tripwire does not watch
        self.timed_out: str | None = None  # what it was doing when its time ran out, if it did
        self.problems: list[str] = []  # what went wrong while loading the submission
        self.observations: list[Observation] = []  # what the component's value checks returned
        self.built: Built = {}  # the suites' modules built in this child, by case and dtype (suites/running.built)
        self.defined: list[str] = []
        self.closed = sock is None
        if sock is not None:
            watchdog.watch(self)

    @property
    def used(self) -> float:
        """CPU seconds its processes have used, all of them together."""
        return sum(self.cpu.values())

    def idle(self, awaiting: float) -> float:
        """Seconds of the answers awaited (this one for awaiting seconds so far) in which its processes neither
        ran nor waited for a CPU: it slept or blocked."""
        return self.awaited + awaiting - self.used - sum(self.delay.values())

    @property
    def _socket(self) -> socket.socket:
        assert self.sock is not None, "a child that never ran fails every request with its reason, before this"
        return self.sock

    def ask(self, message: dict[str, object], doing: str) -> Any:
        """Send one message and return the answer, as the child sent it (any JSON: what reads it must expect
        anything); Fatal when none comes."""
        try:
            protocol.send(self._socket, message)
        except OSError:
            self._end(ZERO["stopped before"].format(doing=doing))
        return self._receive(doing)

    def setup(self, message: dict[str, object]) -> None:
        try:
            hello = self.ask(message, LOADING)
            self.problems = [text(p) for p in hello["problems"]][: loader.MAX_NOTES]
            self.defined = [name for name in hello["defined"] if name in spec.ALL_NAMES]
        except Fatal:
            return  # every request will now fail with the reason
        except (TypeError, KeyError):
            self._fail(LOADING)

    def request(self, message: dict[str, object]) -> object:
        if self.fatal:
            raise Fatal(self.fatal)
        doing = messages.describe(message)
        reply = self.ask(message, doing)
        if not messages.well_formed(reply):
            self._fail(doing)
        self.spread = self.spread or reply.get("spread") is True
        if not reply["ok"]:
            if reply.get("kind") in messages.REFUSALS:
                self.delegated, self.unwatched = (
                    reply["kind"] == messages.FORBIDDEN,
                    reply["kind"] == messages.UNWATCHED,
                )
                self._end(text(reply["message"]))
            raise StudentError(text(reply["message"]))
        return texts(reply["value"])

    def _receive(self, doing: str) -> Any:
        if self.fatal:
            raise Fatal(self.fatal)
        started = time.monotonic()
        try:
            # The component's CPU time is counted at most every WATCH_EVERY seconds, while the answer is awaited.
            while (
                time.monotonic() - self.counted >= WATCH_EVERY
                or not select.select([self._socket], [], [], WATCH_EVERY)[0]
            ):
                self.counted = time.monotonic()
                self.watchdog.account(self)
                if self.used >= self.time_limit:
                    self.timed_out = doing
                    self._end(ZERO["time"].format(limit=self.time_limit, doing=doing))
                if self.idle(self.counted - started) >= self.wall_limit:
                    raise protocol.Timeout
            # The answer has begun: the rest may take as long again, in wall-clock time (a large one on a busy machine).
            return protocol.receive(
                self._socket, deadline=time.monotonic() + self.wall_limit, limit=protocol.MAX_REPLY_BYTES
            )
        except protocol.Timeout:
            self.timed_out = doing
            self._end(ZERO["slept"].format(doing=doing, wall=self.wall_limit, used=self.used, limit=self.time_limit))
        except (protocol.Closed, OSError):
            self._end(self.killed or ZERO["crashed"].format(doing=doing))
        except protocol.ProtocolError as error:
            self._end(ZERO["refused reply"].format(doing=doing, error=error))
        finally:
            self.awaited += time.monotonic() - started

    def _fail(self, doing: str) -> NoReturn:
        self._end(ZERO["not an answer"].format(doing=doing))

    def _end(self, reason: str) -> NoReturn:
        self.fatal = reason
        self.close()
        raise Fatal(reason)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.watchdog.account(self)  # what it used since last counted, before its processes die
            self._socket.close()
            self.watchdog.release(self)
