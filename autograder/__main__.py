"""python -m autograder: grade submissions, check the reference, regenerate what is generated."""

import argparse
import shutil
import sys
from pathlib import Path

from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault
from autograder.engine.contract.protocol import visible, visible_name
from autograder.engine.judge import limits

# The student bundle has no grader (its public checks run the suites, on the public cases, without the jail):
# there, `grade` runs the public checks and nothing else exists.
FULL_KIT = (Path(__file__).resolve().parent / "engine" / "judge" / "jail.py").is_file()
BANK_HERE = (Path(__file__).resolve().parent.parent / "breakout_questions").is_dir()
STUDENT_DOC = (
    "python -m autograder: check your work with the public checks, install the course's kernel, quiz yourself."
)
NO_BANK = (
    "the breakout questions are not in this bundle: your instructor grades them in the breakout notebooks "
    "(breakout/), which hold every question; answer them there"
)


def parser():
    """The command line: in the student bundle, its commands alone."""
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__ if FULL_KIT else STUDENT_DOC)
    commands = parser.add_subparsers(dest="command", required=True)

    grade = commands.add_parser("grade", help="grade one submission (a notebook, a .py file or a folder)")
    grade.add_argument("path")
    kernel = commands.add_parser("kernel", help="install the Jupyter kernel the course notebooks ask for")
    kernel.add_argument("--user", action="store_true", help="for this user (default: this environment)")
    # Offered everywhere: a student bundle has the question bank only where the instructor chose to include it,
    # and says so where it has not.
    quiz = commands.add_parser("quiz", help="the breakout questions, for self-study in a terminal")
    quiz.add_argument("part", nargs="?", help="a part's number or name, such as 2 or multihead (default: every part)")
    if not FULL_KIT:
        return parser

    grade.add_argument("--public", action="store_true", help="only the public checks, as in the student bundle")
    grade.add_argument(
        "--json",
        metavar="FILE",
        help="also write results.json here (Gradescope's by default): written even when grading fails",
    )
    grade.add_argument(
        "--component",
        action="append",
        choices=[c.id for c in spec.COMPONENTS] + [spec.INTEGRATION],
        help="grade only this component (repeatable)",
    )
    grade.add_argument(
        "--pretrained",
        metavar="DIR",
        help="also check the encoder with this local BERT checkpoint (save_pretrained layout)",
    )
    grade.add_argument(
        "--accept-flagged",
        action="store_true",
        help="run and score code held for review: you have read it and found it honest",
    )
    _results(grade)
    _limits(grade)

    batch = commands.add_parser(
        "grade-all", help="grade every submission in a class folder (one per subfolder or file)"
    )
    batch.add_argument("folder")
    batch.add_argument(
        "--csv", metavar="FILE", help="write the grades here: one row per submission, a column per component"
    )
    batch.add_argument(
        "--json-dir",
        metavar="DIR",
        help="write each submission's results.json here, as NAME.json for the submission NAME (bob/ -> bob.json, "
        "bob.ipynb -> bob.ipynb.json)",
    )
    batch.add_argument(
        "--accept-flagged",
        metavar="NAME",
        action="append",
        default=[],
        help="run and score this submission's code held for review: you have read it (repeatable)",
    )
    batch.add_argument(
        "--workers", type=_positive, metavar="N", help="grade N submissions at a time (default: one per core)"
    )
    _results(batch)
    _limits(batch)

    batch.add_argument(
        "--report",
        metavar="FILE",
        help="also write the class report here: one HTML page of scores, components, named mistakes and problems",
    )

    report = commands.add_parser(
        "report", help="the class report of a folder of results.json files (grade-all's --json-dir)"
    )
    report.add_argument("folder")
    report.add_argument("--out", default="class-report.html", metavar="FILE", help="default: class-report.html")

    package = commands.add_parser("gradescope", help="write a Gradescope autograder package (a .zip to upload)")
    package.add_argument("out", help="the package to write, a path ending in .zip")
    _visibility(package)
    _limits(package)

    check = commands.add_parser("check-solutions", help="the reference scores full marks, the release zero")
    _limits(check)

    generate = commands.add_parser(
        "generate", help="rebuild the stubs, fixtures and course notebooks from the reference"
    )
    generate.add_argument(
        "--check",
        action="store_true",
        help="rebuild them aside and report whether the files are up to date (restamped if they are)",
    )

    bundle = commands.add_parser("bundle", help="build what students receive: release notebooks and public checks")
    bundle.add_argument("out", help="a new folder, or a path ending in .zip")
    bundle.add_argument(
        "--quiz",
        action="store_true",
        help="also include the question bank, answers and all, for `python -m autograder quiz` "
        "(only where the breakout notebooks are not graded)",
    )

    return parser


def main(argv=None):
    args = parser().parse_args(argv)
    commands = {
        "grade": run_grade if FULL_KIT else run_public,
        "grade-all": run_grade_all,
        "check-solutions": run_check,
        "generate": run_generate,
        "bundle": run_bundle,
        "kernel": run_kernel,
        "quiz": run_quiz,
        "gradescope": run_gradescope,
        "report": run_report,
    }
    try:
        return commands[args.command](args)
    except KitFault as error:  # the kit cannot run here (an install, a config, a question file): not a submission
        print(f"the grader could not run: {error}")
        return 2


def _positive(text):
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return number


VISIBILITY = ("visible", "after_due_date", "after_published", "hidden")  # Gradescope's


def _results(parser):
    from autograder.engine.judge.platforms import FORMATS

    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="gradescope",
        help="which platform's results.json to write (default: gradescope)",
    )
    _visibility(parser)


def _visibility(parser):
    parser.add_argument(
        "--visibility",
        choices=VISIBILITY,
        default="visible",
        help="Gradescope: when students see each component's score and feedback (default: visible)",
    )


def _limits(parser):
    parser.add_argument("--device", default="cpu", help="where student code runs: cpu (default) or cuda")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=limits.DEFAULT_TIME_LIMIT,
        help=f"CPU seconds of student code per component, all its processes together (default {limits.DEFAULT_TIME_LIMIT:g})",
    )
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=limits.DEFAULT_MEMORY_LIMIT / 2**30,
        help=f"GiB a component's processes may use together beyond torch itself (default {limits.DEFAULT_MEMORY_LIMIT / 2**30:g})",
    )
    parser.add_argument(
        "--total-time",
        type=float,
        default=limits.DEFAULT_TOTAL_TIME,
        help=f"seconds of student code per submission, all components (default {limits.DEFAULT_TOTAL_TIME:g})",
    )
    parser.add_argument(
        "--unsafe-no-jail",
        action="store_true",
        help="run student code without the jail (where none can be built); every report says so",
    )


def _grade_args(args):
    bounds = limits.Limits.from_options(args.time_limit, args.memory_limit, args.total_time, args.unsafe_no_jail)
    return dict(device=args.device, limits=bounds)


def run_public(args):
    from autograder.course.public import progress
    from autograder.engine.contract.errors import SubmissionError
    from autograder.engine.contract.loader import candidate_files

    try:
        candidate_files(Path(args.path))
        print(progress(args.path))
    except SubmissionError as error:
        print(f"nothing to check: {error}")
        return 2
    return 0


def run_kernel(args):
    from autograder.course.jupyter import KERNEL_NAME, install_kernel

    print(f"installed the Jupyter kernel {KERNEL_NAME} in {install_kernel(args.user)}")
    return 0


def run_bundle(args):
    from autograder import bundle

    try:
        print(f"student bundle written to {bundle.build(args.out, quiz=args.quiz)}")
    except FileExistsError as error:
        print(error)
        return 2
    return 0


def run_quiz(args):
    from autograder.breakout import bank, quiz

    if not (FULL_KIT or BANK_HERE):
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


def run_grade(args):
    if args.public:
        return run_public(args)
    import time

    from autograder.engine.contract.errors import SubmissionError
    from autograder.engine.contract.loader import candidate_files
    from autograder.engine.judge.grade import grade
    from autograder.engine.judge.platforms import results_json
    from autograder.engine.judge.results import Report

    try:
        candidate_files(Path(args.path))
    except SubmissionError as error:
        print(f"nothing to grade: {visible(str(error))}")
        if not args.json:
            return 2
        not_a_submission = 2  # the platform still gets its results: 0, and this sentence
    else:
        not_a_submission = 0
    started = time.monotonic()
    try:
        report = grade(args.path, components=args.component, accept_flagged=args.accept_flagged, **_grade_args(args))
        if args.pretrained:
            from autograder.engine.judge.pretrained import check_pretrained

            report.components.append(check_pretrained(args.path, args.pretrained, **_grade_args(args)))
    except Exception as error:
        if not args.json:
            raise
        # On a grading platform the student still gets results: 0 and the reason, never nothing.
        report = Report.failed(args.path, error, time.monotonic() - started)
    print(report.table())
    if args.json:
        _write(args.json, results_json(report, args.format, args.visibility))
        print(f"results written to {args.json}")
    return 2 if report.grader_failed else not_a_submission


def _write(path, text):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)


def run_grade_all(args):
    import csv

    from autograder.engine.judge.platforms import gradescope, results_json
    from autograder.engine.judge.pool import grade_each, submissions_in
    from autograder.engine.judge.progress import Progress

    if not Path(args.folder).is_dir():
        print(f"{args.folder} is not a folder: grade-all takes a folder with one submission per subfolder or file")
        return 2
    paths = submissions_in(args.folder)  # listed once: the bar counts what is graded
    if not paths:
        print(
            f"nothing to grade: {visible(args.folder)} holds no submission (a subfolder, notebook or .py file per student)"
        )
        return 2
    ids = [c.id for c in spec.COMPONENTS]
    widths = {i: max(8, len(i)) for i in ids}
    students = student_ids(paths)
    rows = []
    if args.json_dir:
        Path(args.json_dir).mkdir(parents=True, exist_ok=True)
    if args.unsafe_no_jail:
        print(_grade_args(args)["limits"].unsafe_note())
    print(f"{'submission':<24} {'total':>7}  " + " ".join(f"{i:>{widths[i]}}" for i in ids))
    accepted = [path for path in paths if {path.name, students[path]} & set(args.accept_flagged)]
    progress = Progress(len(paths))
    graded = []  # (student, Gradescope results), for the class report
    # Rows are printed as submissions finish, and written to the CSV in name order.
    for path, report in grade_each(paths, accepted=accepted, workers=args.workers, **_grade_args(args)):
        scores = {c.id: c.score for c in report.scored}
        # A zero says why: the grading's own problem, or what loading the code noted (a syntax error, say).
        why = report.problem or ("; ".join(report.notes) if not report.score else "")
        name, problem = visible_name(students[path]), visible(why)  # a student chose the name
        rows.append(
            {"submission": name, "total": report.score, **scores, "flags": " | ".join(report.flags), "problem": problem}
        )
        mark = "  HELD for review" if report.flags else f"  {problem[:80]}" if problem else ""
        progress.clear()
        print(
            f"{name[:24]:<24} {report.score:7.2f}  " + " ".join(f"{scores[i]:{widths[i]}.2f}" for i in ids) + mark,
            flush=True,
        )
        progress.step(name)
        if args.report:
            graded.append((students[path], gradescope(report)))
        if args.json_dir:
            # The whole name, suffix and all: bob/, bob.evil/ and bob.ipynb each keep a report of their own.
            _write(Path(args.json_dir) / f"{path.name}.json", results_json(report, args.format, args.visibility))
    if args.csv:
        with open(args.csv, "w", newline="") as file:
            writer = csv.DictWriter(file, ["submission", "total", *ids, "flags", "problem"])
            writer.writeheader()
            writer.writerows(
                {key: spreadsheet_safe(value) for key, value in row.items()}
                for row in sorted(rows, key=lambda row: row["submission"])
            )
        print(f"grades of {len(rows)} submissions written to {args.csv}")
    if args.report:
        from autograder import class_report

        students = sorted((class_report.student(name, results) for name, results in graded), key=lambda s: s.name)
        _write(args.report, class_report.render(students, f"Class report: {Path(args.folder).name}"))
        print(f"class report written to {args.report}")
    return 0


def run_report(args):
    from autograder import class_report

    if not Path(args.folder).is_dir():
        print(f"{args.folder} is not a folder: report takes a folder of results.json files (grade-all's --json-dir)")
        return 2
    students = class_report.read_folder(args.folder)
    if not students:
        print(f"nothing to report: {visible(args.folder)} holds no .json file")
        return 2
    _write(args.out, class_report.render(students, f"Class report: {Path(args.folder).name}"))
    print(f"class report of {len(students)} submissions written to {args.out}")
    return 0


# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell that a student's bytes
# begin, their name or a note that quotes their file, is written after a quote, which the spreadsheet shows as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A CSV cell that no spreadsheet runs: text that begins like a formula gets a leading quote; numbers stay numbers."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def student_ids(paths):
    """{path: the student's id}: a notebook's or .py file's name without its suffix, unless another
    submission has that name (bob/ and bob.py), where both keep their whole names."""
    stems = [p.stem if p.is_file() else p.name for p in paths]
    return {p: stem if p.is_file() and stems.count(stem) == 1 else p.name for p, stem in zip(paths, stems)}


def run_gradescope(args):
    from autograder import gradescope

    if not args.out.endswith(".zip"):
        print(f"{args.out}: the package is a .zip archive; give a path ending in .zip")
        return 2
    options = [
        "--visibility",
        args.visibility,
        "--device",
        args.device,
        "--time-limit",
        str(args.time_limit),
        "--memory-limit",
        str(args.memory_limit),
        "--total-time",
        str(args.total_time),
    ]
    options += ["--unsafe-no-jail"] if args.unsafe_no_jail else []
    print(f"Gradescope autograder package written to {gradescope.build(args.out, options)}")
    return 0


def run_check(args):
    from autograder.course import notebooks
    from autograder.engine.judge.grade import grade

    solutions = grade(spec.SOLUTIONS, **_grade_args(args))
    release = grade(spec.ASSIGNMENTS, **_grade_args(args))
    # The course notebooks hold the same exercises: their source must score full marks, their release zero.
    source_notebooks = grade(notebooks.SOURCE, **_grade_args(args))
    release_notebooks = grade(notebooks.RELEASE, **_grade_args(args))
    problems = []
    for name, report in (("reference", solutions), ("source notebooks", source_notebooks)):
        problems += [f"{name} {c.id}: {c.score:g}/{c.points:g}" for c in report.components if c.status != "passed"]
    for name, report in (("release", release), ("release notebooks", release_notebooks)):
        problems += [f"{name} {c.id}: {c.score:g} points, expected 0" for c in report.scored if c.score]
    problems += _bank_problems()
    # The verdict first; then the reference's table. The untouched release fails every test by design: its
    # table (a FAILED line per test) is shown only where it scored something.
    if problems:
        print("check-solutions FAILED: " + "; ".join(problems))
    else:
        print(
            f"check-solutions passed: reference {solutions.score:g}/{solutions.max_score:g} "
            f"(integration check passing), untouched release {release.score:g}/{release.max_score:g}; "
            f"course notebooks: source {source_notebooks.score:g}/{source_notebooks.max_score:g}, "
            f"release {release_notebooks.score:g}/{release_notebooks.max_score:g}; "
            f"breakout questions: every key graded correct"
        )
    print("", solutions.table(), sep="\n")
    if release.score or release_notebooks.score:
        print("", release.table(), "", release_notebooks.table(), sep="\n")
    return 1 if problems else 0


def _bank_problems():
    """The question bank loads, and each autograded question's own key is graded correct."""
    from autograder.breakout import bank

    try:
        parts = bank.load()
    except bank.BankError as error:
        return [f"breakout questions: {error}"]
    questions = [q for p in parts for q in p.questions if q.autograded]
    return [
        f"breakout question {q.number} ({q.id}): its own answer is graded {verdict.status}"
        for q in questions
        if (verdict := bank.judge(q, q.written_answer())).status != "correct"
    ]


def run_generate(args):
    from autograder import generated
    from autograder.breakout import bank

    try:
        if args.check:
            drift = generated.drift()
            print(
                "generated files are up to date"
                if not drift
                else "out of date: " + ", ".join(drift) + " (run: python -m autograder generate)"
            )
            if not drift:
                generated.restamp()  # what was just rebuilt from these inputs is what is there
            return 1 if drift else 0
        generated.write()
    except bank.BankError as error:  # an instructor's edit to breakout_questions/: say where, change nothing more
        print(f"the question bank cannot be used: {error}")
        return 2
    print("stubs, fixtures, course notebooks, quiz notebooks and handout regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
