"""generation graded through the jail: the reference's full marks and the release's 0, apart from the core's 100; a
broken MultiHeadAttention and a broken Seq2SeqTransformer cost generation nothing (its cases run on the reference's);
and the suite fails a sample_next that draws from the distribution without its filters, by its draws alone."""

import shutil

from support.helpers import scores, submission

from autograder.engine.contract import spec

GENERATION = spec.BY_ID["generation"]


def test_the_reference_scores_full_marks_in_generation_and_the_release_zero_apart_from_the_core(tmp_path, sandbox):
    shutil.copytree(spec.SOLUTIONS, tmp_path / "reference")
    results, report = scores(tmp_path / "reference", sandbox=sandbox, components=["generation"])
    assert results["generation"].score == GENERATION.points, results["generation"].feedback()
    assert report.totals() == {"core": (0.0, 0), "extensions": (GENERATION.points, GENERATION.points)}
    results, _ = scores(spec.ASSIGNMENTS, sandbox=sandbox, components=["generation"])
    assert results["generation"].score == 0 and results["generation"].tests


def test_a_broken_attention_and_model_cost_generation_nothing_and_ignored_filters_cost_it_the_draws(tmp_path, sandbox):
    """One grading for both: the student's own multihead and seq2seq are broken, their generation right but for
    sample_next, which draws from the temperature's distribution alone."""
    generation = GENERATION.reference.read_text()
    ignoring = generation.replace(
        "sampling_probabilities(logits, temperature, top_k, top_p)  #", "sampling_probabilities(logits, temperature)  #"
    )
    assert ignoring != generation, "the edit of sample_next no longer applies"
    edits = [
        ("multihead", "return self.output(context), weights", "return -self.output(context), weights"),
        ("seq2seq", "return self.lm_head(hidden_states)", "return -self.lm_head(hidden_states)"),
    ]
    path = submission(tmp_path / "s", edits, files={"generation.py": ignoring})
    results, report = scores(path, sandbox=sandbox, components=["multihead", "seq2seq", "generation"])
    assert results["multihead"].score < spec.BY_ID["multihead"].points, report.table()
    assert results["seq2seq"].score < spec.BY_ID["seq2seq"].points, report.table()
    failing = {t.name.split("[")[0] for t in results["generation"].tests if not t.passed}
    draws = {
        "test_sample_next_draws_as_the_reference_with_a_seeded_generator",
        "test_sample_next_with_top_k_1_draws_the_arg_max",
    }
    assert failing == draws, report.table()
