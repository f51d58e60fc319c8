"""The processes student code runs in, as /proc shows them: found, counted, bounded and killed.

The judge never trusts a child to report on itself. A thread looks at the running component's processes every
WATCH_EVERY seconds and kills them all once, together, they hold more memory, processes or threads than the
limits allow; the component's CPU time is summed over every process it ever ran, and so is the time its processes
waited for a CPU, which a busy machine makes long and the student is not charged for.
"""

import os
import signal
import threading
import time
from typing import TYPE_CHECKING

from autograder.engine.contract.reasons import ZERO
from autograder.engine.judge.limits import Limits

if TYPE_CHECKING:
    from autograder.engine.judge.handle import ChildHandle

WATCH_EVERY = 0.25  # seconds between the watchdog's looks at a component's processes
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Watchdog:
    """Watches the processes below root (the zygote's outer pid) other than the kit's own (kit: their pids inside
    the jail), one component at a time (watch, release)."""

    def __init__(self, limits: Limits, root: int, kit: set[str]) -> None:
        self.limits = limits
        self.root = root
        self.kit = kit
        self.zygote: int | None = None  # the zygote's own pid as /proc shows it, once it has started
        self.baseline = 0  # what the zygote alone holds, which a component is not charged
        self._watched: ChildHandle | None = None  # the child whose processes are bounded now
        self._lock = threading.Lock()
        self._closing = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def students(self) -> list[int]:
        """The outer pids of every process student code runs in now."""
        return list(self._threads())

    def _threads(self) -> dict[int, int]:
        """{outer pid: its number of threads} for every process student code runs in now (one read of /proc): every
        process's one-line stat gives its parent and threads, and only those below root are read further."""
        parents: dict[int, int] = {}
        threads: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                found = parent_and_threads(int(entry.name))
                if found:
                    parents[int(entry.name)], threads[int(entry.name)] = found
        students = {}
        for pid in parents:
            ancestor, steps = parents[pid], 0
            while ancestor != self.root and ancestor in parents and steps < 1000:
                ancestor, steps = parents[ancestor], steps + 1
            if ancestor == self.root and self._student(pid):
                students[pid] = threads[pid]
        return students

    def _student(self, pid: int) -> bool:
        """Whether a process below root is a student's: still there, and not the kit's own (told by its pid inside
        the jail)."""
        if not self.kit:
            return True
        found = status(pid)
        return found is not None and found[1][-1] not in self.kit

    def kill_students(self) -> None:
        """Kill every student process, again and again until none is left (a fork bomb races the first round)."""
        for _ in range(200):
            found = self.students()
            if not found:
                return
            for pid in found:
                kill(pid)
            time.sleep(0.005)

    def _watch(self) -> None:
        """Bound the memory and the number of processes of the running component, all of them together."""
        while not self._closing.wait(WATCH_EVERY):
            child = self._watched
            if child is None:
                continue
            with self._lock:
                found = self._threads() if child is self._watched else {}
                child.spread = child.spread or len(found) > 1 or any(threads > 1 for threads in found.values())
                used = sum(map(shared_bytes, found)) + shared_bytes(self.zygote) - self.baseline if found else 0
                if used > self.limits.memory:
                    child.killed = ZERO["memory"].format(used=used / 2**30, limit=self.limits.memory / 2**30)
                elif len(found) > self.limits.processes:
                    child.killed = ZERO["processes"].format(limit=self.limits.processes)
                elif sum(found.values()) > self.limits.tasks:
                    child.killed = ZERO["threads"].format(limit=self.limits.tasks)
                else:
                    continue
                self.kill_students()  # again and again: a process may fork while the first round kills it

    def account(self, child: "ChildHandle") -> None:
        """Add what the component's processes have used of the CPU since last counted (child.cpu), and how long
        they waited for one (child.delay)."""
        with self._lock:
            if child is not self._watched:
                return
            for pid in self._threads():
                found = cpu_seconds(pid)
                if found is not None:
                    key, seconds = found
                    child.cpu[key] = max(child.cpu.get(key, 0.0), seconds)
                    child.delay[key] = max(child.delay.get(key, 0.0), run_delay(pid))

    def watch(self, child: "ChildHandle") -> None:
        with self._lock:
            self._watched = child

    def release(self, child: "ChildHandle") -> None:
        """The child is done: it and every process it started are killed, before anything else starts."""
        with self._lock:
            if self._watched is child:
                self._watched = None
        self.kill_students()

    def close(self) -> None:
        self._closing.set()


def status(pid: int) -> tuple[int, list[str], int] | None:
    """(parent pid, [pid in each namespace], threads) from /proc, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as file:
            lines = file.read().splitlines()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in lines if ":" in line)
    return int(fields["PPid"]), fields.get("NSpid", str(pid)).split(), int(fields.get("Threads", "1"))


def parent_and_threads(pid: int) -> tuple[int, int] | None:
    """(parent pid, threads) from /proc/PID/stat, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[17])


def kill(pid: int) -> None:
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


def cpu_seconds(pid: int) -> tuple[tuple[int, str], float] | None:
    """((pid, start time), user + system CPU seconds) of a process, or None once it is gone. Its children's
    times are not included: each is counted as a process of its own while it lives."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (pid, fields[19]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def run_delay(pid: int) -> float:
    """Seconds the threads of a process have spent ready to run but waiting for a CPU (the kernel's schedstat), 0
    where the kernel keeps no such count. A thread that has ended takes its count with it; the caller keeps the
    largest sum it saw."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as file:
                total += int(file.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def shared_bytes(pid: int | None) -> int:
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
