"""How fast the kit is, measured in one run so that a noisy, shared machine affects both sides alike.

Reports:
- grading one complete submission (the reference) against `python -c "import torch"`: target <= 3x;
- the jail's cost: jailed `grade` against `--unsafe-no-jail` on the same submission (interleaved):
  target at most 1.25x;
- a class (200 by default) graded by `grade-all` on every core: a generated mix of complete, buggy
  (the mutation catalog's mistakes), broken and hostile submissions, as a course gets them; seconds
  per submission amortised, against `python -c "import torch"`: target at most 1x;
- the kit's own test suite (`make test` runs exactly this): target under 6 minutes on 2 cores.

Usage: python benchmarks/grading_speed.py [--repeat N] [--class-size N] [--skip-tests] [--report FILE]
"""

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT / "tests"))  # the kit's tests build submissions from the reference and the mutation catalog
from support.helpers import submission  # noqa: E402
from support.mutations import edits  # noqa: E402

from autograder.engine.authoring.mistakes import CATALOG  # noqa: E402

# Twenty submissions as a course gets them: most complete, some with one mistake, a few that do not
# load, one hostile.
MIX = ["complete"] * 12 + ["buggy"] * 5 + ["broken"] * 2 + ["hostile"]
BROKEN = [
    {"transformer.py": "def attention(q, k, v:\n"},  # a syntax error, and nothing else handed in
    {"attention.ipynb": "{this is not a notebook"},
]
HOSTILE = [
    {
        "steal.py": f"try:\n    SECRET = open({str(KIT / 'solutions' / 'masking.py')!r}).read()\nexcept OSError:\n    pass\n"
    },
    {"leave.py": "import os\nos._exit(3)\n"},
    {"hog.py": "BIG = bytearray(16 << 30)\n"},
    {"spin.py": "while True:\n    pass\n"},  # costs one time limit, by design
]


def seconds(command, cwd=KIT):
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def make_class(folder, size):
    """size submissions in folder, named NNN-kind, in MIX's proportions; returns {name: kind}."""
    mistakes, broken, hostile = itertools.cycle(CATALOG), itertools.cycle(BROKEN), itertools.cycle(HOSTILE)
    kinds = {}
    for i, kind in zip(range(size), itertools.cycle(MIX)):
        path = folder / f"{i:03d}-{kind}"
        if kind == "complete":
            submission(path)
        elif kind == "buggy":
            submission(path, edits(next(mistakes)))
        elif kind == "broken":
            path.mkdir()
            for name, text in next(broken).items():
                (path / name).write_text(text)
        else:
            submission(path, files=next(hostile))
        kinds[path.name] = kind
    return kinds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each single timing; the median is reported")
    parser.add_argument("--class-size", type=int, default=200, help="submissions graded by grade-all")
    parser.add_argument("--skip-tests", action="store_true", help="do not time the test suite")
    parser.add_argument("--report", metavar="FILE", help="also write the class's report (grade-all --report) here")
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
    print(
        f"the same with --unsafe-no-jail       {free:6.2f} s: the jail costs {jailed / free:.2f}x (target: at most 1.25x)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        folder, results = Path(tmp) / "class", Path(tmp) / "results"
        folder.mkdir()
        kinds = make_class(folder, args.class_size)
        before = seconds([sys.executable, "-c", "import torch"])
        report_option = ["--report", Path(args.report).resolve()] if args.report else []
        batch = seconds(
            [sys.executable, "-m", "autograder", "grade-all", folder, "--json-dir", results, *report_option]
        )
        after = seconds([sys.executable, "-c", "import torch"])
        per_kind, scores = defaultdict(list), defaultdict(list)
        for name, kind in kinds.items():
            report = json.loads((results / f"{name}.json").read_text())
            per_kind[kind].append(report["execution_time"])
            scores[kind].append(report["score"])
    base = (before + after) / 2
    amortised = batch / args.class_size
    print(f"\ngrade-all, a class of {args.class_size} on every core: {batch:.1f} s")
    for kind in sorted(per_kind, key=MIX.index):
        print(
            f"  {len(per_kind[kind]):4d} {kind:<9} {statistics.mean(per_kind[kind]):6.2f} s each in its worker, "
            f"scores {min(scores[kind]):g} to {max(scores[kind]):g}"
        )
    print(f"python -c 'import torch'             {base:6.2f} s  (before and after the class)")
    print(
        f"per submission, amortised            {amortised:6.2f} s: {amortised / base:.2f}x importing torch (target: at most 1x)"
    )
    if not args.skip_tests:
        tests = seconds(["make", "test"])
        print(f"\ntest suite (make test)               {tests / 60:6.2f} min (target: under 10 min)")


if __name__ == "__main__":
    main()
