"""Pretrained parity on a small BERT checkpoint and tokenizer that the test saves itself."""
import pytest
from transformers import BertModel, BertTokenizerFast

from autograder import hf
from autograder.pretrained import SENTENCES, check_pretrained
from autograder import spec
from helpers import submission

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-bert")
    words = sorted({w.strip(".,").lower() for s in SENTENCES for w in s.split()} | {".", ","})
    (folder / "vocab.txt").write_text("\n".join(SPECIAL + words) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    config = hf.bert_config(vocab_size=len(SPECIAL) + len(words), max_position_embeddings=32)
    hf.randomize(BertModel(config), seed=7).save_pretrained(folder)
    return folder


def test_reference_encoder_matches_the_checkpoint(checkpoint):
    result = check_pretrained(spec.SOLUTIONS, checkpoint)
    assert [t.passed for t in result.tests] == [True, True], result.feedback()
    assert (result.points, result.tag) == (0, "encoder")


def test_broken_encoder_fails_the_checkpoint(checkpoint, tmp_path):
    path = submission(tmp_path / "s", [("encoder", "hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")])
    result = check_pretrained(path, checkpoint)
    assert not any(t.passed for t in result.tests)
    assert "differ from the expected values" in result.feedback()


def test_missing_checkpoint_is_a_message(tmp_path):
    result = check_pretrained(spec.SOLUTIONS, tmp_path / "nowhere")
    assert result.fatal and "could not be used" in result.fatal
