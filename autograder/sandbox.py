"""The judge's side of the sandbox: a zygote process and, per component, a child that runs student code.

Student code never runs in the judge. A child is killed when its component's time runs out; whatever
happens in it (an exception, a crash, an exit, a hang) becomes a message, never the judge's problem.
"""
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

from autograder import protocol, runtime, spec
from autograder.protocol import PID

DEFAULT_TIME_LIMIT = 60.0  # seconds of student code per component, loading included
DEFAULT_MEMORY_LIMIT = 4 << 30  # bytes a child may add to what torch itself takes


class StudentError(AssertionError):
    """Student code failed in a way the current test reports (an exception, a bad result)."""


class Fatal(StudentError):
    """Student code ended its component: a timeout, a crash, or a forbidden delegation."""


@dataclass
class Limits:
    time: float = DEFAULT_TIME_LIMIT
    memory: int = DEFAULT_MEMORY_LIMIT


class Sandbox:
    """Starts the zygote at once, so that torch is imported while the judge gets ready."""

    def __init__(self, device="cpu", limits=None):
        self.device = device
        self.limits = limits or Limits()
        self._control, theirs = socket.socketpair()
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(spec.KIT_ROOT), env.get("PYTHONPATH")]))
        self._process = subprocess.Popen(
            [sys.executable, "-m", "autograder.zygote", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=env,
            cwd="/",
        )
        theirs.close()
        self._ready = False

    def start(self, component_id, submission):
        """A Child serving component_id, or one whose every request fails with the reason it could not start."""
        if not self._ready:
            self._read_pid()  # the zygote's own, once torch is imported
            self._ready = True
        ours, theirs = socket.socketpair()
        socket.send_fds(self._control, [b"f"], [theirs.fileno()])
        theirs.close()
        pid = self._read_pid()
        child = Child(ours, pid, component_id, self.limits.time)
        child.setup(self._setup(component_id, submission))
        return child

    def _read_pid(self):
        data = b""
        while len(data) < PID.size:
            chunk = self._control.recv(PID.size - len(data))
            if not chunk:
                raise RuntimeError("the sandbox's zygote process exited; is torch installed?")
            data += chunk
        return PID.unpack(data)[0]

    def _setup(self, component_id, submission):
        references = spec.references_for(component_id)
        graded = spec.ALL_NAMES if component_id == spec.INTEGRATION else spec.BY_ID[component_id].names
        component = spec.BY_ID.get(component_id)
        return {
            "device": self.device,
            "memory_limit": self.limits.memory,
            "forbidden": list(component.forbidden) if component else [],
            "reason": component.forbidden_reason if component else "",
            "references": reference_source(references),
            "reference_names": [name for c in references for name in c.names],
            "submission": submission.as_message(),
            "graded_names": list(graded),
        }

    def close(self):
        self._control.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def reference_source(components):
    """The reference's source for just these components, as the child loads it."""
    return {
        "units": [{"module": c.id, "label": f"{runtime.REFERENCE_LABEL}{c.id}.py", "code": c.reference.read_text()} for c in components],
        "owners": {name: c.id for c in components for name in c.names},
    }


class Child:
    def __init__(self, sock, pid, component_id, time_limit):
        self.sock = sock
        self.pid = pid
        self.component_id = component_id
        self.time_limit = time_limit
        self.remaining = time_limit
        self.fatal = None  # the message that ended this component, if one did
        self.problems = []  # what went wrong while loading the submission
        self.defined = []

    def setup(self, message):
        protocol.send(self.sock, message)
        try:
            hello = self._receive("loading your submission")
        except Fatal:
            return  # every request will now fail with the reason
        self.problems = hello["problems"]
        self.defined = hello["defined"]

    def new(self, target, *args, **kwargs):
        return {"$object": self.request({"op": "new", "target": target, "args": list(args), "kwargs": kwargs})}

    def load(self, obj, params):
        self.request({"op": "load", "object": obj["$object"], "params": params})

    def call(self, target, *args, dtype=None, return_inputs=False, **kwargs):
        return self.request(
            {"op": "call", "target": target, "args": list(args), "kwargs": kwargs, "dtype": dtype, "return_inputs": return_inputs}
        )

    def request(self, message):
        if self.fatal:
            raise Fatal(self.fatal)
        try:
            protocol.send(self.sock, message)
        except OSError:
            self._end("the process running your code had already stopped")
        reply = self._receive(_describe(message))
        if not reply["ok"]:
            if reply["kind"] == "forbidden":
                self._end(reply["message"])
            raise StudentError(reply["message"])
        return reply["value"]

    def _receive(self, doing):
        if self.fatal:
            raise Fatal(self.fatal)
        started = time.monotonic()
        try:
            return protocol.receive(self.sock, deadline=started + self.remaining)
        except protocol.Timeout:
            self._end(f"scores 0: your code ran past the time limit of {self.time_limit:g} s while {doing}")
        except (protocol.Closed, protocol.ProtocolError, OSError):
            self._end(
                f"scores 0: the process running your code stopped while {doing} "
                "(a crash, sys.exit/os._exit, or running out of memory)"
            )
        finally:
            self.remaining -= time.monotonic() - started

    def _end(self, message):
        self.fatal = message
        self.close()
        raise Fatal(message)

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.sock.close()


def _describe(message):
    target = message.get("target")
    name = "a method of an object it built" if isinstance(target, dict) else target
    return {"new": f"building {name}", "load": "loading weights", "call": f"running {name}"}[message["op"]]
