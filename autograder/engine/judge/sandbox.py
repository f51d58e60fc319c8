"""The judge's side of the sandbox: a zygote process and, per component, a child that runs student code.

Student code never runs in the judge. The zygote and everything it forks live in the jail (jail.py),
unless an instructor passes --unsafe-no-jail. One component's child runs at a time: when it is done,
or killed because its time ran out, every process it started is killed too (found in /proc, signalled
through pidfds), and the zygote empties the jail's /tmp before the next fork. A watchdog thread bounds
the memory of all of a component's processes together. Whatever happens in there (an exception, a
crash, an exit, a hang, a killed zygote) becomes a message, never the judge's problem.
"""

import ast
import contextlib
import functools
import marshal
import math
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from autograder.engine.contract import loader, protocol, spec
from autograder.engine.contract.protocol import PID

DEFAULT_TIME_LIMIT = 60.0  # CPU seconds of student code per component, loading included, all its processes together
DEFAULT_TOTAL_TIME = 240.0  # CPU seconds of student code per submission, all components together
# The time limits count CPU time, so that a busy machine costs no honest student points; code that sleeps or
# blocks is stopped by the wall clock, at WALL_FACTOR times a component's limit and WALL_SLACK seconds more.
WALL_FACTOR = 4
WALL_SLACK = 10.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
DEFAULT_MEMORY_LIMIT = 4 << 30  # bytes all of a component's processes may add to what torch itself takes
DEFAULT_PROCESSES = 64  # processes a component may run at once
# Threads and processes a component may run at once. RLIMIT_NPROC counts them only for an unprivileged
# user: a jail started by root is root outside, where the limit does not bind, so the watchdog counts.
DEFAULT_TASKS = 128
START_TIME = 120.0  # seconds the zygote may take to import torch
ANSWER_TIME = 10.0  # seconds the zygote may take to fork
WATCH_EVERY = 0.25  # seconds between the watchdog's looks at a component's processes
MAX_TEXT = 2000  # characters of any one message from a child that the judge keeps
LOADING = "loading your submission"
MAX_OPTIONS = 26  # letters in one choice answer, at most
BOOT = "import sys; sys.path.insert(0, sys.argv[3]); from autograder.engine.child import zygote; zygote.main(int(sys.argv[1]), sys.argv[2] == 'jailed')"


class StudentError(AssertionError):
    """Student code failed in a way the current test reports (an exception, a bad result)."""


class Fatal(StudentError):
    """Student code ended its component: a timeout, a crash, or a forbidden delegation."""


@dataclass
class Limits:
    time: float = DEFAULT_TIME_LIMIT
    memory: int = DEFAULT_MEMORY_LIMIT
    total: float = DEFAULT_TOTAL_TIME
    processes: int = DEFAULT_PROCESSES
    tasks: int = DEFAULT_TASKS
    jail: bool = True  # False only with --unsafe-no-jail

    @classmethod
    def from_options(cls, time, memory_gib, total, unsafe_no_jail):
        """The limits as the command line and nbgrader's configuration give them: memory in GiB, the jail as an opt-out."""
        return cls(time, int(memory_gib * 2**30), total, jail=not unsafe_no_jail)

    def unsafe_note(self):
        return (
            None
            if self.jail
            else "graded WITHOUT the jail (--unsafe-no-jail): student code could read and change the grader"
        )


@dataclass
class Parsed:
    """A submission as the parse child read it, with the static check's verdict (child/scrutiny.py)."""

    submission: loader.Submission
    held: dict  # {component id: ["FILE, line N: uses X (why)", ...]}: code outside the policy that it needs
    kernels: dict  # {component id: ["FILE, line N: names X", ...]}: library kernels of its subject it names
    missing: dict  # {name: why it is not defined}: what held or skipped statements would have bound


class Sandbox:
    """Starts the zygote at once, so that torch is imported while the judge gets ready.

    Raises jail.JailUnavailable, with what to install, when the limits ask for a jail and none can be built.
    """

    def __init__(self, device="cpu", limits=None):
        self.device = device
        self.limits = limits or Limits()
        if self.limits.jail:
            from autograder.engine.judge import (
                jail,
            )  # the student bundle's sandbox never jails: its jail.py is left out

            jail.check(device)
        self._log = _Tail()
        self._watched = None  # the child whose processes the watchdog bounds
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._start()
        threading.Thread(target=self._watch, daemon=True).start()

    def _start(self):
        self._control, theirs = socket.socketpair()
        argv = ["-I", "-c", BOOT, str(theirs.fileno()), "jailed" if self.limits.jail else "free"]
        passed = [theirs.fileno()]
        if self.limits.jail:
            from autograder.engine.judge import jail

            seccomp = jail.filter_fd()
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
        self._zygote, self._baseline = None, 0

    def _stop(self):
        """End the zygote and everything in its tree (in the jail: its PID namespace dies with it)."""
        self._control.close()
        self.kill_students()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()

    def _fork(self):
        """Our end of a new child's socket; restarts the zygote once if it is gone or stuck."""
        for attempt in range(2):
            try:
                if not self._ready:
                    self._read_pid(START_TIME)
                    self._ready = True
                    self._zygote = self._zygote_pid()
                # What the zygote holds alone, before the fork: a component's processes are charged what the
                # zygote and they hold together beyond it (pages they share, with it or each other, count once).
                self._baseline = _shared_bytes(self._zygote)
                ours, theirs = socket.socketpair()
                socket.send_fds(self._control, [b"f"], [theirs.fileno()])
                theirs.close()
                self._read_pid(ANSWER_TIME)
                return ours
            except (OSError, protocol.Closed, protocol.Timeout):
                if attempt:
                    raise RuntimeError(f"the sandbox's zygote process does not start: {self._log.text()}") from None
                self._stop()
                self._start()

    def _read_pid(self, seconds):
        return PID.unpack(protocol.read(self._control, PID.size, time.monotonic() + seconds))[0]

    def parse(self, path):
        """The Submission at path and the static check's verdict (flags, kernels), parsed in the jail from a
        bounded read by a child that runs none of it."""
        name, files, notes = loader.read_files(path)
        reply = self._one_shot(
            {"parse": {"name": name, "files": files, "notes": notes}, "memory_limit": self.limits.memory}
        )
        if not isinstance(reply, dict) or "error" in reply or "submission" not in reply:
            error = reply.get("error") if isinstance(reply, dict) else None
            raise loader.SubmissionError(_text(error) if error else "it could not be parsed")
        units = [
            loader.Unit(_text(u["module"], None), _text(u["label"], None), str(u["code"]), _places(u.get("skip")))
            for u in reply["submission"]["units"]
        ]
        submission = loader.Submission(
            units, dict(reply["submission"]["owners"]), loader.distinct(map(_text, reply["notes"]))
        )
        held, kernels = (_by_component(reply.get(key)) for key in ("held", "kernels"))
        missing = reply.get("missing") if isinstance(reply.get("missing"), dict) else {}
        return Parsed(submission, held, kernels, {_text(k, 100): _text(v) for k, v in list(missing.items())[:1000]})

    def answers(self, cells, names):
        """{name: value} of a quiz sheet's answers, from its code cells run in order in the jail.

        A value that is not plain data (a number, text, a list of text) comes back as an object of a
        class with its type's name, which the bank's checks reject by name, as they would in a kernel.
        """
        reply = self._one_shot(
            {"answers": {"cells": cells, "names": names}, "memory_limit": self.limits.memory},
            "running your answer cells",
        )
        if not isinstance(reply, dict) or not isinstance(reply.get("answers"), dict):
            raise loader.SubmissionError("its answer cells gave nothing to read")
        return {name: _answer(value) for name, value in reply["answers"].items() if name in names}

    def _one_shot(self, message, doing="reading your submission"):
        child = Child(self, self._fork(), "parse", self.limits.time)
        try:
            return child.ask(message, doing)
        except Fatal as error:
            raise loader.SubmissionError(str(error).removeprefix("scores 0: ")) from None
        finally:
            child.close()

    def start(self, component_id, parsed, seconds=None, accepted=False):
        """A Child serving component_id, or one whose every request fails with the reason it could not start.

        The statements the static check held or skipped do not run, unless an instructor accepted them."""
        child = Child(self, self._fork(), component_id, min(self.limits.time, seconds or self.limits.time))
        child.setup(self._setup(component_id, parsed, accepted))
        return child

    def failed(self, component_id, reason):
        """A Child that never ran: every request fails with the reason."""
        return Child(self, None, component_id, 0, fatal=reason)

    def _setup(self, component_id, parsed, accepted):
        references = spec.references_for(component_id)
        submission = parsed.submission.as_message()
        if accepted:
            submission["units"] = [dict(unit, skip=[]) for unit in submission["units"]]
        graded = spec.ALL_NAMES if component_id == spec.INTEGRATION else spec.BY_ID[component_id].names
        component = spec.BY_ID.get(component_id)
        return {
            "device": self.device,
            "memory_limit": self.limits.memory,
            "processes": self.limits.processes if self.limits.jail else None,
            "forbidden": list(component.forbidden) if component else [],
            "reason": component.forbidden_reason if component else "",
            "references": reference_source(references),
            "reference_names": [name for c in references for name in c.names],
            "submission": submission,
            "graded_names": list(graded),
            "accepted": accepted,
            "missing": {} if accepted else parsed.missing,
        }

    def students(self):
        """The outer pids of every process student code runs in now: the zygote's tree less the kit's own."""
        return list(self._threads())

    def _threads(self):
        """{outer pid: its number of threads} for every process student code runs in now (one read of /proc)."""
        parents, inner, threads = {}, {}, {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                status = _status(int(entry.name))
                if status:
                    parents[int(entry.name)], inner[int(entry.name)], threads[int(entry.name)] = status
        root = self._process.pid
        kit = {"1"} if self.limits.jail else set()  # in the jail: the zygote, its pid 1 (jail.command)
        found = {}
        for pid in parents:
            ancestor, steps = parents[pid], 0
            while ancestor != root and ancestor in parents and steps < 1000:
                ancestor, steps = parents[ancestor], steps + 1
            if ancestor == root and inner[pid][-1] not in kit:
                found[pid] = threads[pid]
        return found

    def _zygote_pid(self):
        """The zygote's pid as the judge sees it: the jail's pid 1 (jail.command), or the process itself."""
        if not self.limits.jail:
            return self._process.pid
        for entry in os.scandir("/proc"):
            status = _status(int(entry.name)) if entry.name.isdigit() else None
            if status and status[0] == self._process.pid and status[1][-1] == "1":
                return int(entry.name)
        return None

    def kill_students(self):
        """Kill every student process, again and again until none is left (a fork bomb races the first round)."""
        for _ in range(200):
            found = self.students()
            if not found:
                return
            for pid in found:
                _kill(pid)
            time.sleep(0.005)

    def _watch(self):
        """Bound the memory and the number of processes of the running component, all of them together."""
        while not self._closing.wait(WATCH_EVERY):
            child = self._watched
            if child is None:
                continue
            with self._lock:
                found = self._threads() if child is self._watched else {}
                child.spread = child.spread or len(found) > 1 or any(threads > 1 for threads in found.values())
                used = sum(map(_shared_bytes, found)) + _shared_bytes(self._zygote) - self._baseline if found else 0
                if used > self.limits.memory:
                    child.killed = (
                        f"scores 0: your code's processes used {used / 2**30:.1f} GiB together, more than "
                        f"the limit of {self.limits.memory / 2**30:g} GiB"
                    )
                elif len(found) > self.limits.processes:
                    child.killed = f"scores 0: your code started more than {self.limits.processes} processes"
                elif sum(found.values()) > self.limits.tasks:
                    child.killed = (
                        f"scores 0: your code ran more than {self.limits.tasks} threads and processes at once"
                    )
                else:
                    continue
                self.kill_students()  # again and again: a process may fork while the first round kills it

    def account(self, child):
        """Add what the component's processes have used of the CPU since last counted (child.cpu)."""
        with self._lock:
            if child is not self._watched:
                return
            for pid in self._threads():
                found = _cpu_seconds(pid)
                if found is not None:
                    key, seconds = found
                    child.cpu[key] = max(child.cpu.get(key, 0.0), seconds)

    def watch(self, child):
        with self._lock:
            self._watched = child

    def release(self, child):
        """The child is done: it and every process it started are killed, before anything else starts."""
        with self._lock:
            if self._watched is child:
                self._watched = None
        self.kill_students()

    def close(self):
        self._closing.set()
        self._stop()
        self._log.close()


class _Tail:
    """The last SIZE bytes the zygote writes to its standard error, the rest read and dropped.

    Never a file: whatever in the jail holds the zygote's standard error can write to it without bound (once,
    anything could, through bwrap's reaper's /proc/1/fd), and into a file that was the judge's disk."""

    SIZE = 2000

    def __init__(self):
        self._read, self.fd = os.pipe()
        self._data = b""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        while chunk := os.read(self._read, 1 << 16):
            self._data = (self._data + chunk)[-self.SIZE :]
        os.close(self._read)

    def text(self):
        return self._data.decode(errors="replace").strip() or "(it wrote nothing)"

    def close(self):
        os.close(self.fd)  # the drain ends once every writer in the jail has gone too


def _status(pid):
    """(parent pid, [pid in each namespace], threads) from /proc, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as file:
            lines = file.read().splitlines()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    return int(fields["PPid"]), fields.get("NSpid", str(pid)).split(), int(fields.get("Threads", "1"))


def _kill(pid):
    """SIGKILL through a pidfd: a pid that was reused since it was listed is never hit."""
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        return
    try:
        signal.pidfd_send_signal(handle, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(handle)


def _cpu_seconds(pid):
    """((pid, start time), user + system CPU seconds) of a process, or None once it is gone. Its children's
    times are not included: each is counted as a process of its own while it lives."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (pid, fields[19]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _shared_bytes(pid):
    """A process's proportional share of memory (PSS): its own pages, and each page it shares divided among the
    processes that share it. Summed over processes, memory they share (with the zygote, torch's pages, or with
    each other, MAP_SHARED) counts once."""
    if pid is None:
        return 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as file:
            fields = dict(line.split(":", 1) for line in file.read().splitlines()[1:] if ":" in line)
    except OSError:
        return 0
    return sum(int(fields.get(key, "0 kB").split()[0]) for key in ("Pss", "SwapPss")) * 1024


def _answer(value):
    """An answer as the child sent it, checked: student code shares the child's socket and may send anything."""
    if isinstance(value, dict) and isinstance(value.get("$other"), str):
        return type(_text(value["$other"], 50), (), {})()
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list) and len(value) <= MAX_OPTIONS and all(isinstance(x, str) for x in value):
        return [_text(x, 50) for x in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1e300:
        return math.inf  # beyond a float: the bank says it is not a finite number
    return value if value is None or isinstance(value, (bool, int, float)) else object()


def _places(value):
    """The [line, column] pairs of statements not to run, as the parse child sent them, checked."""
    if not isinstance(value, list):
        return []
    return [
        [int(a), int(b)]
        for a, b in (p for p in value if isinstance(p, list) and len(p) == 2)
        if type(a) is int and type(b) is int
    ]


def _by_component(table, most=5):
    """{component id: [text, ...]} as the parse child sent it, checked and bounded."""
    if not isinstance(table, dict):
        return {}
    return {
        c: [_text(r) for r in reasons][:most]
        for c, reasons in table.items()
        if c in spec.BY_ID and isinstance(reasons, list)
    }


def _text(value, limit=MAX_TEXT):
    """A child's string as the judge keeps it: a string, visible (protocol.visible), and no longer than limit."""
    text = value if isinstance(value, str) else str(value)
    text = text if limit is None or len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more characters]"
    return protocol.visible(text)


def _texts(value):
    """A child's reply with every string in it made _text: the suites quote its type names and dtypes. A
    tensor is an array with its dtype's name; anything else that says it is one is the submission's forgery."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return [_texts(v) for v in value]
    if isinstance(value, dict):
        if "$tensor" in value and not (
            isinstance(value["$tensor"], np.ndarray) and isinstance(value.get("dtype"), str)
        ):
            return {"$other": "something that claims to be a tensor"}
        return {k: _texts(v) for k, v in value.items()}
    return value


def reference_source(components):
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
def _compiled_reference(component_id):
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


class Requests:
    """What the suites ask of a student's code, as messages to request(): a child's (over its socket), or the
    public checks' stand-in's (course/local.py, in the student's own process)."""

    def new(self, target, *args, **kwargs):
        return {"$object": self.request({"op": "new", "target": target, "args": list(args), "kwargs": kwargs})}

    def load(self, obj, params):
        self.request({"op": "load", "object": obj["$object"], "params": params})

    def call(self, target, *args, dtype=None, return_inputs=False, **kwargs):
        return self.request(
            {
                "op": "call",
                "target": target,
                "args": list(args),
                "kwargs": kwargs,
                "dtype": dtype,
                "return_inputs": return_inputs,
            }
        )

    def train(self, target, *args, dtype=None, upstream=(), **kwargs):
        """The call in train mode, then one backward pass from upstream (a gradient per output, or None)."""
        return self.request(
            {
                "op": "train",
                "target": target,
                "args": list(args),
                "kwargs": kwargs,
                "dtype": dtype,
                "upstream": list(upstream),
            }
        )

    def request(self, message):
        raise NotImplementedError


class Child(Requests):
    def __init__(self, sandbox, sock, component_id, time_limit, fatal=None):
        self.sandbox = sandbox
        self.sock = sock
        self.component_id = component_id
        self.time_limit = time_limit  # CPU seconds
        self.wall_limit = WALL_FACTOR * time_limit + WALL_SLACK
        self.wall_deadline = time.monotonic() + self.wall_limit
        self.cpu = {}  # {(pid, start time): CPU seconds} of every process of the component seen so far
        self.counted = time.monotonic()  # when self.cpu was last brought up to date
        self.fatal = fatal  # the message that ended this component, if one did
        self.killed = None  # why the watchdog killed its processes, if it did
        self.delegated = False  # its tripwire saw a library kernel of its subject run
        self.unwatched = False  # its tripwire refused code that would have run where it cannot watch
        self.spread = False  # its code ran in other threads or processes, which the tripwire does not watch
        self.timed_out = None  # what it was doing when its time ran out, if it did
        self.problems = []  # what went wrong while loading the submission
        self.observations = []  # what the component's value checks returned (diagnosis.Observation)
        self.built = {}  # the suites' modules built in this child, by case and dtype (suites/common.built)
        self.defined = []
        self.closed = sock is None
        if sock is not None:
            sandbox.watch(self)

    @property
    def used(self):
        """CPU seconds its processes have used, all of them together."""
        return sum(self.cpu.values())

    def ask(self, message, doing):
        """Send one message and return the answer; Fatal when none comes."""
        try:
            protocol.send(self.sock, message)
        except OSError:
            self._end(f"scores 0: the process running your code had stopped before {doing}")
        return self._receive(doing)

    def setup(self, message):
        try:
            hello = self.ask(message, LOADING)
            self.problems = [_text(p) for p in hello["problems"]][: loader.MAX_NOTES]
            self.defined = [name for name in hello["defined"] if name in spec.ALL_NAMES]
        except Fatal:
            return  # every request will now fail with the reason
        except (TypeError, KeyError):
            self._fail(LOADING)

    def request(self, message):
        if self.fatal:
            raise Fatal(self.fatal)
        reply = self.ask(message, _describe(message))
        if (
            not isinstance(reply, dict)
            or not isinstance(reply.get("ok"), bool)
            or ("value" if reply["ok"] else "message") not in reply
        ):
            self._fail(_describe(message))
        self.spread = self.spread or reply.get("spread") is True
        if not reply["ok"]:
            if reply.get("kind") in ("forbidden", "unwatched"):
                self.delegated, self.unwatched = reply["kind"] == "forbidden", reply["kind"] == "unwatched"
                self._end(_text(reply["message"]))
            raise StudentError(_text(reply["message"]))
        return _texts(reply["value"])

    def _receive(self, doing):
        if self.fatal:
            raise Fatal(self.fatal)
        try:
            # The component's CPU time is counted at most every WATCH_EVERY seconds, while the answer is awaited.
            while (
                time.monotonic() - self.counted >= WATCH_EVERY or not select.select([self.sock], [], [], WATCH_EVERY)[0]
            ):
                self.counted = time.monotonic()
                self.sandbox.account(self)
                if self.used >= self.time_limit:
                    self.timed_out = doing
                    self._end(f"scores 0: your code ran past the time limit of {self.time_limit:g} s while {doing}")
                if time.monotonic() >= self.wall_deadline:
                    raise protocol.Timeout
            return protocol.receive(self.sock, deadline=self.wall_deadline, limit=protocol.MAX_REPLY_BYTES)
        except protocol.Timeout:
            self.timed_out = doing
            self._end(
                f"scores 0: your code was stopped after {self.wall_limit:g} s while {doing}, using little of "
                f"its {self.time_limit:g} s of CPU time: it slept or waited"
            )
        except (protocol.Closed, OSError):
            self._end(
                self.killed
                or (
                    f"scores 0: the process running your code stopped while {doing} "
                    "(a crash, sys.exit/os._exit, or running out of memory)"
                )
            )
        except protocol.ProtocolError as error:
            self._end(
                f"scores 0: the process running your code sent the grader something it does not accept while {doing} ({error})"
            )

    def _fail(self, doing):
        self._end(
            f"scores 0: the process running your code sent the grader something that is not an answer while {doing}"
        )

    def _end(self, message):
        self.fatal = message
        self.close()
        raise Fatal(message)

    def close(self):
        if not self.closed:
            self.closed = True
            self.sandbox.account(self)  # what it used since last counted, before its processes die
            self.sock.close()
            self.sandbox.release(self)


def _describe(message):
    target = message.get("target")
    name = "a method of an object it built" if isinstance(target, dict) else target
    return {
        "new": f"building {name}",
        "load": "loading weights",
        "call": f"running {name}",
        "train": f"running {name} in train mode",
    }[message["op"]]
