"""The course extensions graded through the jail: the reference's training scores full marks and the release's 0,
apart from the core's 100; a broken sequence_loss costs training alone; torch's clip_grad_norm_ scores training 0 with
the reason. Each grading takes the shared sandbox, and only the components it is about."""

import shutil

from support.helpers import catalog, graded_here, scores, submission
from support.hint_evidence import reasons_said

from autograder.course import notebooks
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.contract.reasons import DELEGATION
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

TRAINING = spec.BY_ID["training"]


def with_training(folder, source):
    """The core's reference in folder, and training.py with this source."""
    path = submission(folder, files={"training.py": source})
    return path


def test_the_reference_scores_full_marks_in_training_and_the_release_zero_apart_from_the_core(tmp_path, sandbox):
    shutil.copytree(spec.SOLUTIONS, tmp_path / "reference")
    results, report = scores(tmp_path / "reference", sandbox=sandbox, components=["masking", "training"])
    assert results["training"].score == TRAINING.points, results["training"].feedback()
    assert report.totals() == {"core": (5.0, 5), "extensions": (TRAINING.points, TRAINING.points)}
    assert "extensions" in report.table() and "core" in report.table()
    results, _ = scores(spec.ASSIGNMENTS, sandbox=sandbox, components=["training"])
    assert results["training"].score == 0 and results["training"].tests


def test_part_9s_source_notebook_scores_full_marks_in_training_and_its_release_zero(sandbox):
    """The graded cell of part 9 grades the notebook's own exercises: the source's reference, the release's stubs."""
    for folder, score in ((notebooks.SOURCE, TRAINING.points), (notebooks.RELEASE, 0)):
        results, _ = scores(folder / "09_train.ipynb", sandbox=sandbox, components=["training"])
        assert results["training"].score == score, results["training"].feedback()


def test_a_broken_sequence_loss_costs_training_alone(tmp_path, sandbox):
    """The loss counting padding, a cataloged mistake: in the jail it costs training what the suites in this process
    take, and its sentence reaches the report, as one mistake of each core component does (test_mutations)."""
    mistake = mistakes.BY_ID["training/padding-counted-in-the-loss"]
    path = submission(tmp_path / "s", catalog(mistake.id))
    results, report = scores(path, sandbox=sandbox, components=["seq2seq", "training"])
    assert results["seq2seq"].score == spec.BY_ID["seq2seq"].points, results["seq2seq"].feedback()
    training = results["training"]
    assert 0 < training.score < TRAINING.points, report.table()
    failing = {t.name.split("[")[0] for t in training.tests if not t.passed}
    assert "test_sequence_loss_matches_reference" in failing and "test_shift_right_matches_reference" not in failing
    assert training.diagnosis == LIKELY_MISTAKE + mistake.says, training.feedback()
    assert f"[training] {training.feedback().splitlines()[0]}\n  {training.diagnosis}" in report.table()
    here = graded_here("training", mistake.edits)
    assert (training.score, training.feedback()) == (here.score, here.feedback())


def test_calling_torchs_clip_grad_norm_scores_training_zero_with_the_reason(tmp_path, sandbox):
    delegating = TRAINING.reference.read_text() + (
        "\n\ndef clip_gradient_norm(parameters, max_norm):\n    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)\n"
    )
    results, _ = scores(with_training(tmp_path / "s", delegating), sandbox=sandbox, components=["training"])
    training = results["training"]
    assert training.score == 0 and "delegation.training.kernel" in reasons_said(training.feedback())
    said = DELEGATION["training"]["kernel"].format(call="torch's clip_grad_norm_")
    assert training.fatal and said in training.fatal, training.feedback()
