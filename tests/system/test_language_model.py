"""Part 10's notebook runs clean in a kernel and learns (with fewer steps: seconds, not its minutes). (Its text, its
exercises' checks, the key-value cache and training in this process: tests/unit/test_language_model.py.)"""

import json
import re
import shutil

import pytest
from support.course_helpers import execute, install_test_kernel, outputs

from autograder.course import notebooks

NOTEBOOK = "10_language_model.ipynb"
STEPS_LINE = "STEPS = 600"
# Under test: 40 of the notebook's 600 steps, at its seed, take the loss from ln 73 = 4.29 to 2.75 (validation 2.62).
TEST_STEPS, LEARNED_BY_THEN = 40, 3.0


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    return install_test_kernel(tmp_path_factory.mktemp("jupyter"))


def test_the_notebook_runs_clean_and_learns_in_fewer_steps(kernel_env, tmp_path):
    """The source notebook, with the earlier ones beside it, at TEST_STEPS steps (test_course leaves it out)."""
    for path in notebooks.SOURCE.glob("*.ipynb"):
        shutil.copy(path, tmp_path)
    nb = json.loads((tmp_path / NOTEBOOK).read_text())
    (cell,) = [c for c in nb["cells"] if STEPS_LINE in c["source"]]
    cell["source"] = cell["source"].replace(STEPS_LINE, f"STEPS = {TEST_STEPS}")
    (tmp_path / NOTEBOOK).write_text(json.dumps(nb))
    executed = execute(tmp_path / NOTEBOOK, kernel_env)
    problems = outputs(executed, "error") + [(i, o) for i, o in outputs(executed, "stream") if o["name"] == "stderr"]
    assert problems == []
    text = "".join(o.get("text", "") for _, o in outputs(executed, "stream"))
    training, validation = map(float, re.search(r"training loss ([\d.]+), validation loss ([\d.]+)", text).groups())
    assert training < LEARNED_BY_THEN and validation < LEARNED_BY_THEN + 0.2, text
    difference = float(re.search(r"logits differ by at most ([\d.e+-]+)", text).group(1))
    assert difference < 1e-4, text
    assert text.count("all 4 checks passed") == 2 and "sample_next: all 6 checks passed" in text
