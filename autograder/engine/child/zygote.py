"""The fork server: imports torch once, then forks one child per component on the judge's request.

Run as `python -c BOOT FD JAILED` (see sandbox.py), FD being a Unix socket to the judge. Each request
carries a fresh socket (passed as a file descriptor) that the forked child serves. Before each fork the
judge has killed every process the previous child left; in the jail the zygote then empties /tmp and
/dev/shm, so that nothing one component (or one student) leaves behind reaches the next.
"""

from __future__ import annotations

import ctypes
import gc
import os
import re
import shutil
import signal
import socket
import sys
from typing import TYPE_CHECKING

import torch  # noqa: F401 - the import every child needs, paid once here

from autograder.engine.child import allowed, server
from autograder.engine.contract.protocol import PID

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
SCRATCH = ("/tmp", "/dev/shm")


def main(control_fd: int, jailed: bool) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    libc = ctypes.CDLL(None, use_errno=True)
    # Student processes run as the zygote's uid: not dumpable, it cannot be traced or have its memory
    # read or written through /proc. As a subreaper it keeps their orphans in its tree, where the judge
    # finds and kills them.
    libc.prctl(PR_SET_DUMPABLE, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    allowed.warm()
    # A child's collections would walk torch's objects and write to their pages, copying each one that
    # the fork shares with this process: frozen, they are never collected, and a child starts faster.
    gc.freeze()
    control = socket.socket(fileno=control_fd)
    control.sendall(PID.pack(os.getpid()))
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(control, 1, 1)
        except OSError:
            return
        if not fds:
            return  # the judge went away
        if jailed:
            mounts = _mount_points()
            for folder in SCRATCH:
                _empty(folder, mounts)
        pid = os.fork()
        if pid == 0:
            control.close()
            try:
                libc.prctl(PR_SET_DUMPABLE, 1)  # the child's own processes are its business
                server.main(socket.socket(fileno=fds[0]))
            finally:
                os._exit(0)
        os.close(fds[0])
        control.sendall(PID.pack(pid))


def _mount_points() -> set[str]:
    """Where the jail binds something (a venv under /tmp, in a CI checkout): kept, with the folders above it."""
    with open("/proc/self/mountinfo") as file:  # a space in a path is written \040
        return {re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4]) for line in file}


def _empty(folder: str, mounts: set[str]) -> None:
    """Everything under folder goes, but the mounts: on the way to one, only what the student added."""
    for entry in os.scandir(folder):
        if entry.path in mounts:
            continue
        if any(point.startswith(entry.path + "/") for point in mounts) and entry.is_dir(follow_symlinks=False):
            os.chmod(entry.path, 0o700)  # the student owns it, and may have closed it
            _empty(entry.path, mounts)
        elif entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, onerror=_writable)
        else:
            os.unlink(entry.path)


def _writable(function: Callable[[str], object], path: str, _: object) -> None:
    """A folder the student made read-only or unsearchable is still theirs to delete: open it up and retry."""
    os.chmod(os.path.dirname(path), 0o700)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=_writable)
    else:
        function(path)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] == "jailed")
