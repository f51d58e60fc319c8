"""How long `nbgrader autograde` takes per student, as a ratio to `python -m autograder grade` on the same
notebooks, both measured in this run (the machine is shared and noisy: only the ratio means much).

Submissions are those of tests/system/test_nbgrader_pipeline.py, taken in turn: complete, untouched release,
one bug. `grade` is timed once on each kind; nbgrader on one complete submission, then on a class, each
in a fresh course directory in a temporary folder, as the README sets it up. Last, one complete answer
sheet of the breakout quizzes.

Usage: python benchmarks/nbgrader_autograde.py [--class-size 20]
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(KIT), str(KIT / "tests")]

from support.course_helpers import completed, install_test_kernel, nbgrader, new_course  # noqa: E402

from autograder.breakout import quiz_notebooks  # noqa: E402
from autograder.course import notebooks  # noqa: E402

KINDS = ("complete", "untouched", "buggy")
BUG = ("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")


def submit(release, source, target, kind):
    if kind == "untouched":
        shutil.copytree(release, target)
    else:
        completed(release, source, target, [BUG] if kind == "buggy" else ())


@contextmanager
def class_of(kinds, assignment=notebooks.ASSIGNMENT):
    """A course directory whose submitted/ holds one submission per kind given: (root, env, submission folders)."""
    with tempfile.TemporaryDirectory() as tmp:
        root, env = Path(tmp) / "course", install_test_kernel(Path(tmp) / "jupyter")
        root.mkdir()
        students = [f"{kind}{i:03d}" for i, kind in enumerate(kinds)]
        release = new_course(root, env, students, assignment=assignment)
        folders = [root / "submitted" / student / assignment for student in students]
        for folder, kind in zip(folders, kinds):
            submit(release, root / "source" / assignment, folder, kind)
        yield root, env, folders


def autograde(kinds, assignment=notebooks.ASSIGNMENT):
    with class_of(kinds, assignment) as (root, env, _):
        started = time.perf_counter()
        run = nbgrader(root, env, "autograde", assignment)
        elapsed = time.perf_counter() - started
    if run.returncode:
        sys.exit(f"nbgrader autograde failed:\n{run.stdout}{run.stderr}")
    return elapsed


def timed(command):
    started = time.perf_counter()
    run = subprocess.run(command, cwd=KIT, capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"{' '.join(map(str, command))} failed:\n{run.stdout}{run.stderr}")
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-size", type=int, default=20)
    args = parser.parse_args()
    class_kinds = [KINDS[i % len(KINDS)] for i in range(args.class_size)]
    with class_of(KINDS) as (_, _, folders):
        grade = {
            kind: timed([sys.executable, "-m", "autograder", "grade", folder]) for kind, folder in zip(KINDS, folders)
        }
    one = autograde(["complete"])
    whole = autograde(class_kinds)
    per_student = sum(grade[kind] for kind in class_kinds) / len(class_kinds)
    quiz = autograde(["complete"], quiz_notebooks.ASSIGNMENT)
    print("python -m autograder grade, one submission: " + ", ".join(f"{kind} {grade[kind]:.1f} s" for kind in KINDS))
    print(f"nbgrader autograde, 1 complete submission:     {one:6.1f} s   {one / grade['complete']:.2f}x grade")
    print(
        f"nbgrader autograde, class of {args.class_size:<3}:             {whole:6.1f} s   "
        f"{whole / args.class_size:.2f} s per student, {whole / args.class_size / per_student:.2f}x grade"
    )
    print(f"nbgrader autograde breakout, 1 answer sheet:   {quiz:6.1f} s")


if __name__ == "__main__":
    main()
