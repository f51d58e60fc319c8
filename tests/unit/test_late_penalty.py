"""The kit's late penalty under nbgrader (autograder/nbgrader/late.py): a share per day begun, and extensions.
tests/system/test_nbgrader_pipeline.py has nbgrader apply it to a submission collected from the exchange."""

import pytest

from autograder.nbgrader.late import DAY, KitLatePenalty


@pytest.mark.parametrize(
    "seconds_late, penalty",
    [(1, 1.5), (DAY, 1.5), (DAY + 1, 3.0), (3 * DAY, 4.5), (9.5 * DAY, 15.0), (30 * DAY, 15.0)],
    ids=["a second", "a day", "a day and a second", "three days", "nine and a half days", "a month"],
)
def test_a_late_notebook_loses_its_share_for_every_day_begun_up_to_its_score(seconds_late, penalty):
    assert KitLatePenalty(percent_per_day=10).late_submission_penalty("hank", 15, seconds_late) == penalty


def test_an_extension_moves_one_students_due_date_and_no_one_elses():
    plugin = KitLatePenalty(percent_per_day=10, extensions={"alice": 1.5})
    assert plugin.late_submission_penalty("alice", 15, 1.5 * DAY) is None
    assert plugin.late_submission_penalty("alice", 15, 1.5 * DAY + 1) == 1.5
    assert plugin.late_submission_penalty("hank", 15, 1.5 * DAY) == 3.0


def test_no_penalty_per_day_is_no_penalty():
    assert KitLatePenalty(percent_per_day=0).late_submission_penalty("hank", 15, 5 * DAY) == 0
