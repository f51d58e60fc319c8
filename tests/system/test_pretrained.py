"""Pretrained parity, graded: the check against a small BERT checkpoint that the test saves itself runs a submission's
encoder in the jail, and passes the reference and fails a broken encoder with its hint. (The rest, all-MiniLM-L6-v2
as part 5 shows it among them: tests/unit/test_pretrained.py.)"""

import pytest
from support.helpers import submission, tiny_checkpoint
from support.hint_evidence import shown

from autograder.engine.contract import spec
from autograder.engine.judge.pretrained import SENTENCES, check_pretrained


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory.mktemp("tiny-bert"), SENTENCES)


def test_reference_encoder_matches_the_checkpoint(checkpoint):
    result = check_pretrained(spec.SOLUTIONS, checkpoint)
    assert [t.passed for t in result.tests] == [True, True], result.feedback()
    assert shown(result.feedback()) == set()
    assert (result.points, result.tag) == (0, "encoder")


def test_broken_encoder_fails_the_checkpoint(checkpoint, tmp_path):
    path = submission(
        tmp_path / "s",
        [("encoder", "hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")],
    )
    result = check_pretrained(path, checkpoint)
    assert not any(t.passed for t in result.tests)
    assert "differ from the expected values" in result.feedback()
    assert shown(result.feedback()) == {"encoder.pretrained"}
