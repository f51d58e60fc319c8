"""python -m autograder: grade submissions, check the reference, regenerate what is generated."""

import argparse
import os
import sys

from autograder.commands import student
from autograder.engine.contract.errors import KitFault

# The commands live in commands/, a module per group; this puts them together.
STUDENT_DOC = (
    "python -m autograder: check your work with the public checks, install the course's kernel, quiz yourself."
)


def parser():
    """The command line: in the student bundle, its commands alone."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder", description=__doc__ if student.FULL_KIT else STUDENT_DOC
    )
    commands = parser.add_subparsers(dest="command", required=True)
    grade = student.add(commands)
    if not student.FULL_KIT:
        return parser
    # Imported here: the bundle holds the student's commands alone.
    from autograder.commands import building, grading

    grading.add(commands, grade)
    building.add(commands)
    return parser


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except KitFault as error:  # the kit cannot run here (an install, a config, a question file): not a submission
        print(f"the grader could not run: {error}")
        return 2
    except BrokenPipeError:
        # Whoever read the output went away (`| head`): there is nowhere left to write, not even at exit's flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
