"""The last notebook trains the student's own components: with correct ones the model learns to reverse
digits, as the notebook promises; with a layer norm that cuts the gradient (a cataloged mistake, which
passes every forward check in eval mode) the same notebook shows that it does not learn."""

import re

import pytest
from course_helpers import completed, execute, install_test_kernel, outputs

from autograder.course import notebooks
from autograder.engine.build import mistakes

NOTEBOOK = "09_train.ipynb"
# What the notebook says correct components reach with its seed.
LEARNED_LOSS, LEARNED_MATCH, LEARNED_CLASSIFIER = 0.1, 0.95, 0.9


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    return install_test_kernel(tmp_path_factory.mktemp("jupyter"))


def train(folder, env):
    """Run the notebook in a folder; returns (final loss, exact match, classifier accuracy, what it printed)."""
    nb = execute(folder / NOTEBOOK, env)
    problems = outputs(nb, "error") + [(i, o) for i, o in outputs(nb, "stream") if o["name"] == "stderr"]
    assert problems == []
    text = "".join(o.get("text", "") for _, o in outputs(nb, "stream"))
    loss, match = re.search(r"final loss ([\d.]+), exact match ([\d.]+)%", text).groups()
    accuracy = re.search(r"classification accuracy ([\d.]+)%", text).group(1)
    assert any("image/png" in o.get("data", {}) for _, o in outputs(nb, "display_data")), "the loss curve"
    return float(loss), float(match) / 100, float(accuracy) / 100, text


def test_correct_components_run_clean_and_learn_to_reverse_digits(kernel_env, tmp_path):
    """The reference's exercises in the release notebooks (test_course runs every other source notebook)."""
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student")
    loss, match, accuracy, text = train(folder, kernel_env)
    assert loss < LEARNED_LOSS and match >= LEARNED_MATCH and accuracy >= LEARNED_CLASSIFIER, text
    assert "every parameter gets a gradient" in text


def test_a_layer_norm_that_detaches_its_input_does_not_learn(kernel_env, tmp_path):
    mistake = mistakes.BY_ID["layernorm/input-detached"]
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student", mistake.edits)
    loss, match, accuracy, text = train(folder, kernel_env)
    # The classifier still learns a little: its head trains on the frozen, random features of the encoder.
    assert loss > 10 * LEARNED_LOSS and match < 0.2 and accuracy < 0.7, text
    assert "parameters get no gradient" in text and "embeddings" in text
