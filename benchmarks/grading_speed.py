"""How fast the kit is, measured in one run so that a noisy, shared machine affects both sides alike.

Reports:
- grading one complete submission (the reference) against `python -c "import torch"`: target <= 3x;
- grading a class with `grade-all` (one sandbox for every submission): seconds per submission;
- the jail's cost: jailed `grade` and `grade-all` against `--unsafe-no-jail` on the same submissions
  (interleaved): target at most 1.25x;
- the kit's own test suite (`make test` runs exactly this): target under 10 minutes on 2 cores.

Usage: python benchmarks/grading_speed.py [--repeat N] [--skip-tests]
"""
import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent


def seconds(command, cwd=KIT):
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each timing; the median is reported")
    parser.add_argument("--class-size", type=int, default=20, help="copies of the reference graded by grade-all")
    parser.add_argument("--skip-tests", action="store_true", help="do not time the test suite")
    args = parser.parse_args()

    torch_import, grading, unjailed = [], [], []
    grade = [sys.executable, "-m", "autograder", "grade", "solutions"]
    for _ in range(args.repeat):  # interleaved, so that load on the machine falls on all alike
        torch_import.append(seconds([sys.executable, "-c", "import torch"]))
        grading.append(seconds(grade))
        unjailed.append(seconds(grade + ["--unsafe-no-jail"]))
    base, jailed, free = (statistics.median(times) for times in (torch_import, grading, unjailed))
    print(f"python -c 'import torch'             {base:6.2f} s  (median of {args.repeat})")
    print(f"python -m autograder grade solutions {jailed:6.2f} s  (median of {args.repeat})")
    print(f"ratio                                {jailed / base:6.2f}x  (target: at most 3x)")
    print(f"the same with --unsafe-no-jail       {free:6.2f} s: the jail costs {jailed / free:.2f}x (target: at most 1.25x)")
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.class_size):
            shutil.copytree(KIT / "solutions", Path(folder) / f"student{i:03d}")
        batch = [sys.executable, "-m", "autograder", "grade-all", folder]
        jailed, free = seconds(batch), seconds(batch + ["--unsafe-no-jail"])
    print(f"grade-all, {args.class_size} submissions        {jailed / args.class_size:6.2f} s per submission")
    print(f"the same with --unsafe-no-jail       {free / args.class_size:6.2f} s per submission: "
          f"the jail costs {jailed / free:.2f}x (target: at most 1.25x)")
    if not args.skip_tests:
        tests = seconds([sys.executable, "-m", "pytest", "-q"])
        print(f"test suite (make test)               {tests / 60:6.2f} min (target: under 10 min)")


if __name__ == "__main__":
    main()
