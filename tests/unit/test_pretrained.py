"""A checkpoint that is not there is a message. (Pretrained parity, on a small BERT checkpoint that a test saves
itself, graded in the jail, and on all-MiniLM-L6-v2 as part 5 shows it: tests/system/test_pretrained.py.)"""

from autograder.engine.contract import spec
from autograder.engine.judge.pretrained import check_pretrained


def test_missing_checkpoint_is_a_message(tmp_path):
    result = check_pretrained(spec.SOLUTIONS, tmp_path / "nowhere")
    assert not result.tests and "could not be used" in result.feedback()


def test_loading_the_pretrained_bert_silences_tqdms_warning_of_a_bar_it_never_draws():
    """Part 5's first pretrained cell printed a red `TqdmWarning: IProgress not found` (issue 49): tqdm.auto warns on
    import in a kernel without ipywidgets, and transformers imports it."""
    import warnings

    from tqdm.notebook import WARN_NOIPYW
    from tqdm.std import TqdmWarning

    from autograder.course import minilm

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minilm._offline()
        warnings.warn(WARN_NOIPYW, TqdmWarning, stacklevel=1)
        warnings.warn("another warning of tqdm's", TqdmWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["another warning of tqdm's"]
