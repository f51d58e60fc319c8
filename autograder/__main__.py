"""python -m autograder: grade submissions, check the reference, regenerate what is generated."""

import argparse
import importlib.util
import os
import sys
from types import ModuleType

from autograder.commands import student
from autograder.engine.contract.errors import KitFault

# The commands live in commands/, a module per group; this puts together those this copy of the kit holds.
STUDENT_DOC = (
    "python -m autograder: check your work with the public checks, install the course's kernel, quiz yourself."
)


def parser():
    """The command line: in the student bundle, which holds the student's commands alone, those."""
    building: ModuleType | None = None
    grading: ModuleType | None = None
    if importlib.util.find_spec("autograder.commands.grading"):
        from autograder.commands import building, grading
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__ if grading else STUDENT_DOC)
    commands = parser.add_subparsers(dest="command", required=True)
    if grading and building:
        grading.add(commands)
        building.add(commands)
    else:
        student.add_grade(commands)
    student.add(commands)
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
