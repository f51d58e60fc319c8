"""How long `nbgrader autograde` takes on the course: one complete submission, then three together,
and one complete answer sheet of the breakout quizzes.

The three are those of tests/test_nbgrader_pipeline.py: complete, untouched release, one bug. Each
run is a fresh course directory in a temporary folder, with the kit's kernel, as the README sets it up.

Usage: python benchmarks/nbgrader_autograde.py
"""
import shutil
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(KIT), str(KIT / "tests")]

from autograder import breakout_notebooks, course  # noqa: E402
from course_helpers import completed, install_test_kernel, nbgrader, new_course  # noqa: E402


def autograde(students, assignment=course.ASSIGNMENT):
    with tempfile.TemporaryDirectory() as tmp:
        root, env = Path(tmp) / "course", install_test_kernel(Path(tmp) / "jupyter")
        root.mkdir()
        release = new_course(root, env, students, assignment=assignment)
        source, submitted = root / "source" / assignment, root / "submitted"
        for student in students:
            target = submitted / student / assignment
            if student == "untouched":
                shutil.copytree(release, target)
            else:
                completed(release, source, target, [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")] if student == "buggy" else ())
        started = time.perf_counter()
        run = nbgrader(root, env, "autograde", assignment)
        elapsed = time.perf_counter() - started
        if run.returncode:
            sys.exit(f"nbgrader autograde failed:\n{run.stdout}{run.stderr}")
        return elapsed


def main():
    one = autograde(["complete"])
    three = autograde(["complete", "untouched", "buggy"])
    quiz = autograde(["complete"], breakout_notebooks.ASSIGNMENT)
    print(f"nbgrader autograde, 1 complete submission:   {one:6.1f} s")
    print(f"nbgrader autograde, 3 submissions together:  {three:6.1f} s  ({three / 3:.1f} s each)")
    print(f"nbgrader autograde breakout, 1 answer sheet: {quiz:6.1f} s")


if __name__ == "__main__":
    main()
