"""What student code may use: each component's CPU time, a submission's, memory, processes and threads."""

from dataclasses import dataclass

DEFAULT_TIME_LIMIT = 60.0  # CPU seconds of student code per component, loading included, all its processes together
DEFAULT_TOTAL_TIME = 240.0  # CPU seconds of student code per submission, all components together
# The time limits count CPU time, so that a busy machine costs no honest student points. Code that sleeps or
# blocks uses none: it is stopped once the time its processes spent neither running nor waiting for a CPU (while
# the grader awaited an answer) reaches WALL_FACTOR times a component's limit and WALL_SLACK seconds more. Time
# spent waiting for a CPU is the machine's business, never the student's: counted in wall-clock time, it zeroed
# whole components of a correct submission on a 2-core machine at a load average of 21.
WALL_FACTOR = 4
WALL_SLACK = 10.0
DEFAULT_MEMORY_LIMIT = 4 << 30  # bytes all of a component's processes may add to what torch itself takes
DEFAULT_PROCESSES = 64  # processes a component may run at once
# Threads and processes a component may run at once. RLIMIT_NPROC counts them only for an unprivileged
# user: a jail started by root is root outside, where the limit does not bind, so the watchdog counts.
DEFAULT_TASKS = 128


def wall_limit(cpu_seconds: float) -> float:
    """How long code given cpu_seconds of CPU time may sleep or block, in wall-clock seconds."""
    return WALL_FACTOR * cpu_seconds + WALL_SLACK


@dataclass
class Limits:
    time: float = DEFAULT_TIME_LIMIT
    memory: int = DEFAULT_MEMORY_LIMIT
    total: float = DEFAULT_TOTAL_TIME
    processes: int = DEFAULT_PROCESSES
    tasks: int = DEFAULT_TASKS
    jail: bool = True  # False only with --unsafe-no-jail

    @classmethod
    def from_options(cls, time: float, memory_gib: float, total: float, unsafe_no_jail: bool) -> "Limits":
        """The limits as the command line and nbgrader's configuration give them: memory in GiB, the jail as an opt-out."""
        return cls(time, int(memory_gib * 2**30), total, jail=not unsafe_no_jail)

    def unsafe_note(self) -> str | None:
        return (
            None
            if self.jail
            else "graded WITHOUT the jail (--unsafe-no-jail): student code could read and change the grader"
        )
