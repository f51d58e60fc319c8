"""Correct implementations in styles unlike the reference get full marks: grading is fair to them."""
from pathlib import Path

import pytest

from helpers import scores

SUBMISSIONS = Path(__file__).parent / "submissions"


@pytest.mark.parametrize("name", ["loop_style", "einsum_style.ipynb"])
def test_correct_variant_gets_full_marks(name):
    results, report = scores(SUBMISSIONS / name)
    assert report.score == report.max_score == 100, report.table()
    assert results["integration"].status == "passed", report.table()
