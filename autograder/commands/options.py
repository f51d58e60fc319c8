"""The options several commands share: where student code runs and its limits, the platform's results.json
and when students see it; and the grading arguments and files they make of them."""

import argparse
from pathlib import Path

from autograder.engine.judge import limits

VISIBILITY = ("visible", "after_due_date", "after_published", "hidden")  # Gradescope's
# Student code's limits, each an option: its default, and what it bounds.
LIMITS = (
    (
        "--time-limit",
        limits.DEFAULT_TIME_LIMIT,
        "CPU seconds of student code per component, all its processes together",
    ),
    (
        "--memory-limit",
        limits.DEFAULT_MEMORY_LIMIT / 2**30,
        "GiB a component's processes may use together beyond torch itself",
    ),
    ("--total-time", limits.DEFAULT_TOTAL_TIME, "seconds of student code per submission, all components"),
)


def positive(text):
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return number


def add_results(parser):
    from autograder.engine.judge.platforms import FORMATS

    which = "which platform's results.json to write (default: gradescope)"
    parser.add_argument("--format", choices=FORMATS, default="gradescope", help=which)
    add_visibility(parser)


def add_visibility(parser):
    parser.add_argument(
        "--visibility",
        choices=VISIBILITY,
        default="visible",
        help="Gradescope: when students see each component's score and feedback (default: visible)",
    )


def add_limits(parser):
    parser.add_argument("--device", default="cpu", help="where student code runs: cpu (default) or cuda")
    for option, default, what in LIMITS:
        parser.add_argument(option, type=float, default=default, help=f"{what} (default {default:g})")
    parser.add_argument(
        "--unsafe-no-jail",
        action="store_true",
        help="run student code without the jail (where none can be built); every report says so",
    )


def grade_args(args):
    bounds = limits.Limits.from_options(args.time_limit, args.memory_limit, args.total_time, args.unsafe_no_jail)
    return dict(device=args.device, limits=bounds)


def write(path, text):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)
