"""The system-call filter as bwrap loads it, in a jail on this machine. (The policy's tables, and the filter's
verdicts read without running it: tests/unit/test_policy.py.)"""

import os

from autograder.engine.judge import jail


def test_in_a_gpu_jail_a_unix_socket_opens_and_an_internet_one_does_not():
    """The filter as bwrap loads it, on this machine (which has no GPU: the device only chooses the filter)."""
    import subprocess

    probe = (
        "import socket\n"
        "socket.socket(socket.AF_UNIX).close()\n"
        "try:\n    socket.socket(socket.AF_INET)\nexcept PermissionError:\n    print('refused')\n"
    )
    for device, expected in (("cuda", "refused"), ("cpu", None)):
        seccomp = jail.filter_fd(device)
        try:
            done = subprocess.run(
                jail.command(["-I", "-c", probe], device, seccomp), capture_output=True, text=True, pass_fds=(seccomp,)
            )
        finally:
            os.close(seccomp)
        if expected:
            assert done.returncode == 0 and done.stdout.strip() == expected, done.stderr
        else:  # on the CPU even the Unix socket is refused
            assert done.returncode != 0 and "PermissionError" in done.stderr
