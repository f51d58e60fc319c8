"""make's install as README.md describes it: the pinned torch from PyTorch's CPU index on Linux without an NVIDIA
driver (PyPI's Linux wheel brings several GB of CUDA packages), PyPI's CUDA build where the driver is."""

import re
import shutil
import subprocess

import pytest

from autograder.engine.contract import spec

CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("driver", [False, True], ids=["no NVIDIA driver", "NVIDIA driver"])
def test_make_installs_the_pinned_torch_from_the_cpu_index_only_without_an_nvidia_driver(tmp_path, driver):
    """`make -n` prints the install's commands without running them; the PATH holds what the Makefile asks of the
    machine, and nvidia-smi where the driver is, so that the machine running the test does not decide."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("uname", "grep"):
        (tools / tool).symlink_to(shutil.which(tool))
    if driver:
        (tools / "nvidia-smi").write_text("#!/bin/sh\n")
        (tools / "nvidia-smi").chmod(0o755)
    run = subprocess.run(
        [shutil.which("make"), "-n", "-B", ".venv/.installed"],
        cwd=spec.KIT_ROOT,
        env={"PATH": str(tools)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    pin = re.search(r"^torch==\S+", (spec.KIT_ROOT / "requirements.txt").read_text(), re.M).group()
    installs = [line for line in run.stdout.splitlines() if " -m pip install " in line and "--upgrade pip" not in line]
    assert len(installs) == 2 and installs[0].endswith(f"'{pin}'") and installs[1].endswith("-r requirements.txt")
    assert (CPU_INDEX in installs[0]) is not driver, installs
