"""How the kit's tests are run: each marked by its folder, a unit test kept from starting a process, and how
`make test` shares the tests out between workers (support/scheduling.py)."""

import os
import subprocess

import pytest
from support.scheduling import SHARED_FIXTURE_MODULES, SharedFixturesTogether

from autograder.engine.contract import spec
from autograder.engine.judge.sandbox import Sandbox


def test_every_test_collected_is_marked_by_its_folder(request):
    tests = spec.KIT_ROOT / "tests"
    for item in request.session.items:
        kind = item.path.relative_to(tests).parts[0]
        assert kind in ("unit", "system") and item.get_closest_marker(kind), item.nodeid


# Each looked up when the test runs, once tests/unit/conftest.py has replaced it (os.fork taken here would fork).
@pytest.mark.parametrize(
    "start",
    [lambda: subprocess.run(["true"]), lambda: os.fork(), lambda: Sandbox._fork(None)],
    ids=["a command", "a fork", "a child of a sandbox"],
)
def test_a_unit_test_that_starts_a_process_fails(start):
    with pytest.raises(pytest.fail.Exception, match="move it to tests/system"):
        start()


def test_every_module_kept_together_exists():
    assert all((spec.KIT_ROOT / module).is_file() for module in SHARED_FIXTURE_MODULES)


def test_a_shared_fixtures_module_is_one_unit_and_any_other_test_its_own():
    split = SharedFixturesTogether._split_scope
    assert split(None, "tests/system/test_nbgrader_pipeline.py::test_a") == split(
        None, "tests/system/test_nbgrader_pipeline.py::test_b[x]"
    )
    assert split(None, "tests/unit/test_hostile.py::test_h[a]") != split(None, "tests/unit/test_hostile.py::test_h[b]")
