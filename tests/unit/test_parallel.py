"""How `make test` shares the tests out between workers (support/scheduling.py)."""

from support.scheduling import SHARED_FIXTURE_MODULES, SharedFixturesTogether

from autograder.engine.contract import spec


def test_every_module_kept_together_exists():
    assert all((spec.KIT_ROOT / module).is_file() for module in SHARED_FIXTURE_MODULES)


def test_a_shared_fixtures_module_is_one_unit_and_any_other_test_its_own():
    split = SharedFixturesTogether._split_scope
    assert split(None, "tests/system/test_nbgrader_pipeline.py::test_a") == split(
        None, "tests/system/test_nbgrader_pipeline.py::test_b[x]"
    )
    assert split(None, "tests/unit/test_mutations.py::test_m[a]") != split(
        None, "tests/unit/test_mutations.py::test_m[b]"
    )
