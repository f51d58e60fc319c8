"""Hostile submissions, the static check's part (child/scrutiny.py): it flags every way known to switch off the
delegation tripwire or reach the grader's internals, holding graded code that needs one and leaving scratch code
that does not unrun; and it flags nothing honest. Its verdict alone decides, and nothing runs to reach it. (That
the jail holds where the check is waved through: tests/system/test_hostile.py.)"""

import pytest
from support.attacks import FLAGGED, needed_by
from support.helpers import submission

from autograder.engine.contract import spec


def verdict_of(folder, files):
    from autograder.engine.child import scrutiny
    from autograder.engine.contract import loader

    return scrutiny.check(loader.load(submission(folder, files=files)))


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_reaching_for_the_grader_is_held_where_graded_code_needs_it(name, tmp_path):
    """The verdict is the static check's alone (the parse child's, computed here the same way): nothing runs."""
    component, code = FLAGGED[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": needed_by(component, code)})
    assert verdict.held.get(component), f"{name} was not held"
    assert verdict.skipped, f"{name}: the held code would still run"


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_reaching_for_the_grader_in_scratch_code_is_skipped_and_holds_nothing(name, tmp_path):
    component, code = FLAGGED[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": spec.BY_ID[component].reference.read_text() + code})
    assert verdict.held == {}, f"{name} held a component that does not need it"
    assert verdict.skipped and verdict.notes and "not run, since nothing graded needs" in verdict.notes[0], (
        f"{name} would run"
    )


def test_statements_the_check_skips_never_run():
    """runtime.load_modules runs a unit statement by statement and leaves out the ones the check skipped."""
    from autograder.engine.child import runtime

    code = "ran = []\nran.append(1)\nran.append(2); ran.append(3)\nran.append(4)\n"
    unit = {"module": "m", "label": "m.py", "code": code, "skip": [[2, 0], [3, 15]]}
    modules, problems = runtime.load_modules([unit])
    assert problems == [] and modules["m"].ran == [2, 4]


def test_honest_styles_are_not_flagged():
    from autograder.engine.child import scrutiny
    from autograder.engine.contract import loader

    for path in [
        spec.SOLUTIONS,
        *sorted((spec.KIT_ROOT / "tests" / "submissions").iterdir()),
        spec.KIT_ROOT / "course" / "source",
    ]:
        if path.name == "no_work":
            continue  # made-up answers, not honest work
        verdict = scrutiny.check(loader.load(path))
        assert (verdict.held, verdict.kernels, verdict.notes) == ({}, {}, []), path
