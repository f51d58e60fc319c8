"""A checkpoint that is not there is a message. (Pretrained parity, on a small BERT checkpoint that a test saves
itself, graded in the jail, and on all-MiniLM-L6-v2 as part 5 shows it: tests/system/test_pretrained.py.)"""

from autograder.engine.contract import spec
from autograder.engine.judge.pretrained import check_pretrained


def test_missing_checkpoint_is_a_message(tmp_path):
    result = check_pretrained(spec.SOLUTIONS, tmp_path / "nowhere")
    assert not result.tests and "could not be used" in result.feedback()
