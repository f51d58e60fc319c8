"""The commands a student has, in the bundle as in the kit: `grade` with the public checks (the kit's own
`grade` runs the hidden suites: grading.py), `kernel` (the course's Jupyter kernel) and `quiz` (the breakout
questions in a terminal). Of commands/, the bundle holds this module alone.
"""

import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
BANK_HERE = (PACKAGE.parent / "breakout_questions").is_dir()
NO_BANK = (
    "the breakout questions are not in this bundle: your instructor grades them in the breakout notebooks "
    "(breakout/), which hold every question; answer them there"
)


def add(commands):
    """Add the commands a student has wherever the kit is: kernel and quiz."""
    kernel = commands.add_parser("kernel", help="install the Jupyter kernel the course notebooks ask for")
    kernel.add_argument("--user", action="store_true", help="for this user (default: this environment)")
    kernel.set_defaults(run=run_kernel)
    # Offered everywhere: a student bundle has the question bank only where the instructor chose to include it,
    # and says so where it has not.
    quiz = commands.add_parser("quiz", help="the breakout questions, for self-study in a terminal")
    quiz.add_argument("part", nargs="?", help="a part's number or name, such as 2 or multihead (default: every part)")
    quiz.set_defaults(run=run_quiz)


def add_grade(commands):
    """The bundle's `grade`: the public checks, without the jail (the kit's own, grading.py's, runs the hidden
    suites)."""
    grade = commands.add_parser("grade", help="check one submission (a notebook, a .py file or a folder)")
    grade.add_argument("path")
    grade.set_defaults(run=run_public)


SHEETS_ONLY = (
    "{path} holds breakout quiz sheets only ({count}), no code to check: their answers are graded when you hand them "
    "in, against answers this bundle does not hold; each sheet's cells tell you whether an answer can be graded"
)


def run_public(args):
    from autograder.course.progress import progress
    from autograder.engine.contract.errors import SubmissionError
    from autograder.engine.contract.loader import candidate_files, read_files
    from autograder.engine.contract.noticed import quiz_sheet

    try:
        candidate_files(Path(args.path))
        _, files, _ = read_files(args.path)
        sheets = [relative for relative, text in files if relative.endswith(".ipynb") and quiz_sheet(text)]
        if sheets and len(sheets) == len(files):
            print(SHEETS_ONLY.format(path=args.path, count=len(sheets)))
            return 0
        print(progress(args.path))
    except SubmissionError as error:
        print(f"nothing to check: {error}")
        return 2
    return 0


def run_kernel(args):
    from autograder.course.jupyter import KERNEL_NAME, install_kernel

    print(f"installed the Jupyter kernel {KERNEL_NAME} in {install_kernel(args.user)}")
    return 0


def run_quiz(args):
    from autograder.breakout import bank, quiz

    if not BANK_HERE:
        print(NO_BANK)
        return 2
    try:
        parts = bank.load()
        if args.part:
            parts = (bank.find_part(parts, args.part),)
    except bank.BankError as error:
        print(error)
        return 2
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    try:
        quiz.run(parts, width=min(width, 100) if width else None)
    except KeyboardInterrupt:
        return 130  # the shell's status for Ctrl-C: the quiz did not end on its own
    return 0
