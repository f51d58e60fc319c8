"""What a command leaves alive: run as `python survivors.py SIGNAL -- COMMAND...`, it becomes a subreaper (every
process the command starts, however it detaches, stays its descendant: an orphan is handed to the nearest subreaper,
and a process in a jail dies with its PID namespace), runs the command, and, with a signal other than "none", sends it
that signal while a student's process that ignores SIGTERM runs in a jail under it (the attack under way). Two seconds after the
command has returned it prints, as JSON, every descendant still alive, then kills them (tests/system/test_cli.py)."""

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
SIGTERM_BIT = 1 << (signal.SIGTERM - 1)


def jailed_and_ignoring_sigterm(pid: int) -> bool:
    """A process in a PID namespace below this one (it has a pid in each) that ignores SIGTERM."""
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        return False
    return len(fields.get("NSpid", "").split()) > 1 and bool(int(fields.get("SigIgn", "0"), 16) & SIGTERM_BIT)


def descendants(root: int) -> dict[int, str]:
    """{pid: command line} of every live process under root."""
    parents, lines = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                line = cmdline.read()
        except OSError:
            continue
        if fields[0] != b"Z":
            parents[int(entry)], lines[int(entry)] = int(fields[1]), line.replace(b"\0", b" ").decode(errors="replace")
    found = {}
    for pid in parents:
        ancestor = parents[pid]
        while ancestor in parents and ancestor != root:
            ancestor = parents[ancestor]
        if ancestor == root:
            found[pid] = lines[pid]
    return found


def main() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    name, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1 :]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    if name != "none":
        deadline = time.monotonic() + 300
        while process.poll() is None and time.monotonic() < deadline:
            if any(map(jailed_and_ignoring_sigterm, descendants(os.getpid()))):
                break
            time.sleep(0.05)
        process.send_signal(getattr(signal, name))
    process.wait()
    time.sleep(2)
    while True:  # orphans handed to this subreaper that have exited since
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    alive = descendants(os.getpid())
    print(json.dumps({str(pid): line for pid, line in alive.items()}))
    for pid in alive:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
