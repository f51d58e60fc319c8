"""The fork server: imports torch once, then forks one child per component on the judge's request.

Run as `python -m autograder.zygote FD`, FD being a Unix socket to the judge. Each request carries a
fresh socket (passed as a file descriptor) that the forked child serves.
"""
import os
import signal
import socket
import sys

import torch  # noqa: F401 - the import every child needs, paid once here

from autograder import child
from autograder.protocol import PID


def main(control_fd):
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    control = socket.socket(fileno=control_fd)
    control.sendall(PID.pack(os.getpid()))
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(control, 1, 1)
        except OSError:
            return
        if not fds:
            return  # the judge went away
        pid = os.fork()
        if pid == 0:
            control.close()
            try:
                child.main(socket.socket(fileno=fds[0]))
            finally:
                os._exit(0)
        os.close(fds[0])
        control.sendall(PID.pack(pid))


if __name__ == "__main__":
    main(int(sys.argv[1]))
