"""What a child process is held to before any student code runs, beside the jail and the judge's watchdog: its memory
and processes, the kit hidden from imports, its death with the zygote, and every thread it starts marked."""

from __future__ import annotations

import ctypes
import resource
import signal
import sys
import types
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec

# Module names the student may not import here: the kit itself holds reference code.
BLOCKED_IMPORTS = ("autograder", "solutions")


class ImportBlocker:
    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.split(".")[0] in BLOCKED_IMPORTS:
            raise ImportError(f"importing {fullname} is not allowed in a submission")
        return None


def confine(memory_limit: int | None, device: torch.device, processes: int | None = None) -> None:
    """Limit memory and processes, and hide the kit from imports, before any student code runs (the jail
    and the judge's watchdog do the rest)."""
    if memory_limit and device.type == "cpu":  # CUDA reserves address space far beyond any sane limit
        with open("/proc/self/status") as status:
            in_use = int(status.read().split("VmSize:")[1].split()[0]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (in_use + memory_limit, in_use + memory_limit))
    if processes:  # counted per user in the jail's own user namespace, where the zygote is one more
        resource.setrlimit(resource.RLIMIT_NPROC, (processes + 1, processes + 1))
    sys.meta_path.insert(0, ImportBlocker())


def die_with_zygote() -> None:
    """When the judge is killed, its zygote exits; a child looping in student code must not run on."""
    if sys.platform.startswith("linux"):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def mark_threads(spreading: Callable[[], None]) -> None:
    """Every thread started from now on marks the component spread: the tripwire (a torch function mode) watches its
    own thread alone, and /proc/self/task, counted after a call, no longer shows a thread that was joined (a
    kernel run on one went unseen in a child forked after another student's). The kit starts none of its own."""
    import _thread
    import threading

    def marking(start: Callable[..., Any]) -> Callable[..., Any]:
        def started(*args: object, **kwargs: object) -> Any:
            spreading()
            return start(*args, **kwargs)

        return started

    for module, name in (
        (_thread, "start_new_thread"),
        (_thread, "start_new"),
        (_thread, "start_joinable_thread"),
        (threading, "_start_new_thread"),
        (threading, "_start_joinable_thread"),
    ):
        if hasattr(module, name):
            setattr(module, name, marking(getattr(module, name)))
