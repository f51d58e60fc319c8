"""The judge's side of the sandbox: the zygote's life, and a child per component that runs student code.

Student code never runs in the judge. The zygote and everything it forks live in the jail (jail.py),
unless an instructor passes --unsafe-no-jail. One component's child runs at a time (handle.py): when it is
done, or killed because its time ran out, every process it started is killed too, and the zygote empties
the jail's /tmp before the next fork. The watchdog (watchdog.py) bounds the memory, processes and threads
of all of a component's processes together. Whatever happens in there (an exception, a crash, an exit, a
hang, a killed zygote) becomes a message (replies.py checks each), never the judge's problem.
"""

import ast
import contextlib
import functools
import marshal
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from autograder.engine.contract import loader, protocol, spec
from autograder.engine.contract.errors import Fatal, KitFault, SubmissionError
from autograder.engine.contract.protocol import PID
from autograder.engine.judge.handle import ChildHandle
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.replies import answer, by_component, places, text
from autograder.engine.judge.watchdog import Watchdog, shared_bytes, status

START_TIME = 120.0  # seconds the zygote may take to import torch
ANSWER_TIME = 10.0  # seconds the zygote may take to fork
BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from autograder.engine.child import zygote; zygote.main(int(sys.argv[1]), sys.argv[2] == 'jailed')"


@dataclass
class Parsed:
    """A submission as the parse child read it, with the static check's verdict (child/scrutiny.py)."""

    submission: loader.Submission
    held: dict[str, list[str]]  # {component id: ["FILE, line N: uses X (why)", ...]}: code outside the policy it needs
    kernels: dict[str, list[str]]  # {component id: ["FILE, line N: names X", ...]}: library kernels of its subject
    missing: dict[str, str]  # {name: why it is not defined}: what held or skipped statements would have bound


class Sandbox:
    """Starts the zygote at once, so that torch is imported while the judge gets ready.

    Raises jail.JailUnavailable, with what to install, when the limits ask for a jail and none can be built.
    """

    def __init__(self, device: str = "cpu", limits: Limits | None = None) -> None:
        self.device = device
        self.own_limits = self.limits = limits or Limits()
        if self.limits.jail:
            from autograder.engine.judge import jail

            jail.check(device)
        self._log = _Tail()
        self._start()
        # In the jail, the zygote is its pid 1 (jail.command): the kit's own, never a student's process.
        self.watchdog = Watchdog(self.limits, self._process.pid, {"1"} if self.limits.jail else set())

    def grade_under(self, limits: Limits | None) -> Limits:
        """Make limits (None: the sandbox's own) those of a grading, until it closes, and return them. Time, memory,
        processes and threads are counted and enforced per child, so one zygote serves any of them; whether
        there is a jail was fixed when the zygote started."""
        limits = limits or self.own_limits
        if limits.jail != self.own_limits.jail:
            raise KitFault(
                f"this sandbox was started {'in' if self.own_limits.jail else 'without'} the jail, "
                f"and cannot grade {'in' if limits.jail else 'without'} it"
            )
        self.limits = self.watchdog.limits = limits
        return limits

    def _start(self) -> None:
        self._control, theirs = socket.socketpair()
        argv = ["-I", "-c", BOOT, str(theirs.fileno()), "jailed" if self.limits.jail else "free"]
        passed = [theirs.fileno()]
        if self.limits.jail:
            from autograder.engine.judge import jail

            seccomp = jail.filter_fd(self.device)
            passed += [] if seccomp is None else [seccomp]
            command, env = jail.command(argv + [jail.ROOT], self.device, seccomp), {}
        else:
            command = [sys.executable, *argv, str(spec.KIT_ROOT)]
            env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
        try:
            self._process = subprocess.Popen(
                command,
                pass_fds=passed,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._log.fd,
                env=env,
                cwd="/",
                start_new_session=True,
            )
        finally:
            theirs.close()
            for fd in passed[1:]:
                os.close(fd)
        self._ready = False

    def _stop(self) -> None:
        """End the zygote and everything in its tree (in the jail: its PID namespace dies with it)."""
        self._control.close()
        self.watchdog.kill_students()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()

    def _fork(self) -> socket.socket:
        """Our end of a new child's socket; restarts the zygote once if it is gone or stuck."""
        restarted = False
        while True:
            try:
                if not self._ready:
                    self._read_pid(START_TIME)
                    self._ready = True
                    self.watchdog.zygote = self._zygote_pid()
                # What the zygote holds alone, before the fork: a component's processes are charged what the
                # zygote and they hold together beyond it (pages they share, with it or each other, count once).
                self.watchdog.baseline = shared_bytes(self.watchdog.zygote)
                ours, theirs = socket.socketpair()
                socket.send_fds(self._control, [b"f"], [theirs.fileno()])
                theirs.close()
                self._read_pid(ANSWER_TIME)
                return ours
            except (OSError, protocol.Closed, protocol.Timeout):
                if restarted:
                    raise KitFault(f"the sandbox's zygote process does not start: {self._log.text()}") from None
                restarted = True
                self._stop()
                self._start()
                self.watchdog.root = self._process.pid

    def _read_pid(self, seconds: float) -> int:
        pid: int = PID.unpack(protocol.read(self._control, PID.size, time.monotonic() + seconds))[0]
        return pid

    def parse(self, path: str | Path) -> Parsed:
        """The Submission at path and the static check's verdict (flags, kernels), parsed in the jail from a
        bounded read by a child that runs none of it."""
        name, files, notes = loader.read_files(path)
        reply = self._one_shot(
            {"parse": {"name": name, "files": files, "notes": notes}, "memory_limit": self.limits.memory}
        )
        if not isinstance(reply, dict) or "error" in reply or "submission" not in reply:
            error = reply.get("error") if isinstance(reply, dict) else None
            raise SubmissionError(text(error) if error else "it could not be parsed")
        units = [
            loader.Unit(text(u["module"], None), text(u["label"], None), str(u["code"]), places(u.get("skip")))
            for u in reply["submission"]["units"]
        ]
        submission = loader.Submission(
            units, dict(reply["submission"]["owners"]), loader.distinct(map(text, reply["notes"]))
        )
        held, kernels = (by_component(reply.get(key)) for key in ("held", "kernels"))
        missing = reply["missing"] if isinstance(reply.get("missing"), dict) else {}
        return Parsed(submission, held, kernels, {text(k, 100): text(v) for k, v in list(missing.items())[:1000]})

    def answers(self, cells: list[str], names: list[str]) -> dict[str, object]:
        """{name: value} of a quiz sheet's answers, from its code cells run in order in the jail.

        A value that is not plain data (a number, text, a list of text) comes back as an object of a
        class with its type's name, which the bank's checks reject by name, as they would in a kernel.
        """
        reply = self._one_shot(
            {"answers": {"cells": cells, "names": names}, "memory_limit": self.limits.memory},
            "running your answer cells",
        )
        if not isinstance(reply, dict) or not isinstance(reply.get("answers"), dict):
            raise SubmissionError("its answer cells gave nothing to read")
        return {name: answer(value) for name, value in reply["answers"].items() if name in names}

    def _one_shot(self, message: dict[str, object], doing: str = "reading your submission") -> Any:
        child = ChildHandle(self.watchdog, self._fork(), "parse", self.limits.time)
        try:
            return child.ask(message, doing)
        except Fatal as error:
            raise SubmissionError(error.reason) from None
        finally:
            child.close()

    def start(
        self, component_id: str, parsed: Parsed, seconds: float | None = None, accepted: bool = False
    ) -> ChildHandle:
        """A ChildHandle serving component_id, or one whose every request fails with the reason it could not start.

        The statements the static check held or skipped do not run, unless an instructor accepted them."""
        child = ChildHandle(
            self.watchdog, self._fork(), component_id, min(self.limits.time, seconds or self.limits.time)
        )
        child.setup(self._setup(component_id, parsed, accepted))
        return child

    def failed(self, component_id: str, reason: str) -> ChildHandle:
        """A ChildHandle that never ran: every request fails with the reason."""
        return ChildHandle(self.watchdog, None, component_id, 0, fatal=reason)

    def _setup(self, component_id: str, parsed: Parsed, accepted: bool) -> dict[str, object]:
        references = spec.references_for(component_id)
        submission = parsed.submission.as_message()
        if accepted:
            submission["units"] = [dict(vars(unit), skip=[]) for unit in parsed.submission.units]
        graded = spec.ALL_NAMES if component_id == spec.INTEGRATION else spec.BY_ID[component_id].names
        component = spec.BY_ID.get(component_id)
        return {
            "device": self.device,
            "memory_limit": self.limits.memory,
            "processes": self.limits.processes if self.limits.jail else None,
            "forbidden": list(component.forbidden) if component else [],
            "forbidden_in_python": list(component.forbidden_in_python) if component else [],
            "reason": component.forbidden_reason if component else "",
            "references": reference_source(references),
            "reference_names": [name for c in references for name in c.names],
            "submission": submission,
            "graded_names": list(graded),
            "accepted": accepted,
            "missing": {} if accepted else parsed.missing,
        }

    def students(self) -> list[int]:
        """The outer pids of every process student code runs in now: the zygote's tree less the kit's own."""
        return self.watchdog.students()

    def _zygote_pid(self) -> int | None:
        """The zygote's pid as the judge sees it: the jail's pid 1 (jail.command), or the process itself."""
        if not self.limits.jail:
            return self._process.pid
        for entry in os.scandir("/proc"):
            found = status(int(entry.name)) if entry.name.isdigit() else None
            if found and found[0] == self._process.pid and found[1][-1] == "1":
                return int(entry.name)
        return None

    def close(self) -> None:
        self.watchdog.close()
        self._stop()
        self._log.close()


class _Tail:
    """The last SIZE bytes the zygote writes to its standard error, the rest read and dropped.

    Never a file: whatever in the jail holds the zygote's standard error can write to it without bound (once,
    anything could, through bwrap's reaper's /proc/1/fd), and into a file that was the judge's disk."""

    SIZE = 2000

    def __init__(self) -> None:
        self._read, self.fd = os.pipe()
        self._data = b""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while chunk := os.read(self._read, 1 << 16):
            self._data = (self._data + chunk)[-self.SIZE :]
        os.close(self._read)

    def text(self) -> str:
        return self._data.decode(errors="replace").strip() or "(it wrote nothing)"

    def close(self) -> None:
        os.close(self.fd)  # the drain ends once every writer in the jail has gone too


def reference_source(components: Collection[spec.Component]) -> dict[str, object]:
    """The reference for just these components, as the child loads it: compiled code, never its text (no line,
    docstring or comment of solutions/ enters the child, where a student's code could look for it)."""
    return {
        "units": [
            {
                "module": c.id,
                "label": f"{protocol.REFERENCE_LABEL}{c.id}.py",
                "code": "",
                "compiled": _compiled_reference(c.id),
            }
            for c in components
        ],
        "owners": {name: c.id for c in components for name in c.names},
    }


@functools.cache
def _compiled_reference(component_id: str) -> np.ndarray:
    """A reference module's code object without its docstrings, marshalled (the child runs the same Python)."""
    tree = ast.parse(spec.BY_ID[component_id].reference.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    code = compile(tree, f"{protocol.REFERENCE_LABEL}{component_id}.py", "exec", dont_inherit=True)
    return np.frombuffer(marshal.dumps(code), dtype=np.uint8)
