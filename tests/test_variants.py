"""Correct implementations in styles unlike the reference get full marks: grading is fair to them."""
from pathlib import Path

import pytest

from helpers import scores, submission

SUBMISSIONS = Path(__file__).parent / "submissions"


@pytest.mark.parametrize("name", ["loop_style", "einsum_style.ipynb"])
def test_correct_variant_gets_full_marks(name):
    results, report = scores(SUBMISSIONS / name)
    assert report.score == report.max_score == 100, report.table()
    assert results["integration"].status == "passed", report.table()


def test_imports_inside_functions_find_the_submission(tmp_path):
    """Importing one's own module inside a function works at call time, and still gets the reference."""
    path = submission(tmp_path / "s", [
        ("multihead", "from attention import scaled_dot_product_attention\n", ""),
        ("multihead", "        _, weights = scaled_dot_product_attention(q, k, v, mask)", "        from attention import scaled_dot_product_attention\n\n        _, weights = scaled_dot_product_attention(q, k, v, mask)"),
    ])
    results, report = scores(path, components=["multihead"])
    assert results["multihead"].status == "passed", report.table()
