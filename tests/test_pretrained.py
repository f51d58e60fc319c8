"""Pretrained parity on a small BERT checkpoint and tokenizer that the test saves itself."""

import pytest
from helpers import submission, tiny_checkpoint
from hint_evidence import shown

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


def test_missing_checkpoint_is_a_message(tmp_path):
    result = check_pretrained(spec.SOLUTIONS, tmp_path / "nowhere")
    assert not result.tests and "could not be used" in result.feedback()
