"""A unit test starts no process: no sandbox (the jail's zygote), no Jupyter kernel, no nbgrader and no command of
the kit. Each would fail it here, loudly, rather than make `pytest -m unit` slow: such a test is a system test,
and belongs in tests/system."""

import os
import subprocess

import pytest

from autograder.engine.judge.sandbox import Sandbox


def _refused(*args, **kwargs):
    pytest.fail(
        "a unit test starts no process (a sandbox, a kernel, nbgrader, a command): move it to tests/system",
        pytrace=True,
    )


@pytest.fixture(autouse=True)
def no_process(monkeypatch):
    # Popen is how the kit starts the zygote, a kernel and every command; fork is what is left. A sandbox that a
    # system test started in this worker forks its children without either, so it is refused too.
    monkeypatch.setattr(subprocess.Popen, "__init__", _refused)
    monkeypatch.setattr(os, "fork", _refused)
    monkeypatch.setattr(Sandbox, "_fork", _refused)
