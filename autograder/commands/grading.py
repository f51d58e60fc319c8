"""Grading submissions: the kit's `grade` (the hidden suites, in the jail; the bundle's, in student.py, runs the
public checks), `grade-all` (a class folder, to a table, a CSV, results.json files and the class report) and
`report` (the class report of a folder of results.json files)."""

import contextlib
import time
from pathlib import Path

from autograder.commands import options, student
from autograder.engine.contract import spec
from autograder.engine.contract.protocol import visible, visible_name

COMPONENT_IDS = [c.id for c in spec.COMPONENTS]
# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell that a student's bytes
# begin, their name or a note that quotes their file, is written after a quote, which the spreadsheet shows as text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def add(commands):
    """The kit's `grade`, and the commands for a class."""
    _add_grade(commands)
    _add_grade_all(commands)
    report = commands.add_parser(
        "report", help="the class report of a folder of results.json files (grade-all's --json-dir)"
    )
    report.add_argument("folder")
    report.add_argument("--out", default="class-report.html", metavar="FILE", help="default: class-report.html")
    report.add_argument("--title", default="Class report", help="the page's title (default: Class report)")
    report.set_defaults(run=run_report)


def _add_grade(commands):
    grade = commands.add_parser("grade", help="grade one submission (a notebook, a .py file or a folder)")
    grade.add_argument("path")
    grade.add_argument("--public", action="store_true", help="only the public checks, as in the student bundle")
    grade.add_argument(
        "--json",
        metavar="FILE",
        help="also write results.json here (Gradescope's by default): written even when grading fails",
    )
    grade.add_argument(
        "--component",
        action="append",
        choices=[c.id for c in spec.ALL_COMPONENTS if spec.has_suite(c)] + [spec.INTEGRATION],
        help="grade only this component (repeatable); by default the core, each extension whose names the "
        "submission defines, and the integration check",
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
    options.add_results(grade)
    options.add_limits(grade)
    grade.set_defaults(run=run_grade)


def _add_grade_all(commands):
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
        "--workers", type=options.positive, metavar="N", help="grade N submissions at a time (default: one per core)"
    )
    options.add_results(batch)
    options.add_limits(batch)

    batch.add_argument(
        "--report",
        metavar="FILE",
        help="also write the class report here: one HTML page of scores, components, named mistakes and problems",
    )
    batch.set_defaults(run=run_grade_all)


def run_grade(args):
    if args.public:
        return student.run_public(args)
    from autograder.breakout.sheets import grade_hand_in
    from autograder.engine.contract.errors import SubmissionError
    from autograder.engine.contract.loader import candidate_files
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
        report = grade_hand_in(
            args.path, components=args.component, accept_flagged=args.accept_flagged, **options.grade_args(args)
        )
        if args.pretrained:
            from autograder.engine.judge.pretrained import check_pretrained

            report.components.append(check_pretrained(args.path, args.pretrained, **options.grade_args(args)))
    except Exception as error:
        if not args.json:
            raise
        # On a grading platform the student still gets results: 0 and the reason, never nothing.
        report = Report.failed(args.path, error, time.monotonic() - started)
    print(report.table())
    if args.json:
        options.write(args.json, results_json(report, args.format, args.visibility))
        print(f"results written to {args.json}")
    return 2 if report.grader_failed else not_a_submission


def run_grade_all(args):
    from autograder.engine.judge.pool import submissions_in

    if not Path(args.folder).is_dir():
        print(f"{args.folder} is not a folder: grade-all takes a folder with one submission per subfolder or file")
        return 2
    paths = submissions_in(args.folder)  # listed once: the bar counts what is graded
    if not paths:
        print(
            f"nothing to grade: {visible(args.folder)} holds no submission (a subfolder, notebook or .py file per student)"
        )
        return 2
    if args.json_dir:
        Path(args.json_dir).mkdir(parents=True, exist_ok=True)
    if args.unsafe_no_jail:
        print(options.grade_args(args)["limits"].unsafe_note())
    rows, graded = _grade_class(args, paths)
    if args.csv:
        _write_csv(args.csv, rows)
    if args.report:
        from autograder import class_report

        students = sorted((class_report.student(name, results) for name, results in graded), key=lambda s: s.name)
        options.write(
            args.report, class_report.render(students, f"Class report: {visible_name(Path(args.folder).name)}")
        )
        print(f"class report written to {args.report}")
    return 0


def _grade_class(args, paths):
    """Grade the class, a row printed as each submission finishes: (the CSV's rows, [(student, Gradescope
    results)] for the class report)."""
    from autograder.breakout.sheets import grade_hand_in
    from autograder.engine.judge.platforms import gradescope, results_json
    from autograder.engine.judge.pool import grade_each
    from autograder.engine.judge.progress_bar import Progress
    from autograder.engine.judge.results import BREAKOUT

    widths = {i: max(8, len(i)) for i in [*COMPONENT_IDS, BREAKOUT]}
    students = student_ids(paths)
    rows = []
    print(f"{'submission':<24} {'total':>7}  " + " ".join(f"{i:>{widths[i]}}" for i in [*COMPONENT_IDS, BREAKOUT]))
    accepted = [path for path in paths if {path.name, students[path]} & set(args.accept_flagged)]
    progress = Progress(len(paths))
    graded = []  # (student, Gradescope results), for the class report
    # Rows are printed as submissions finish, and written to the CSV in name order.
    # Closed on the way out, interrupted too: the gradings under way stop at once (pool.grade_each).
    with contextlib.closing(
        grade_each(paths, accepted=accepted, workers=args.workers, grader=grade_hand_in, **options.grade_args(args))
    ) as hand_ins:
        for path, report in hand_ins:
            scores = {c.id: c.score for c in report.scored}
            # A zero says why: the grading's own problem, or what loading the code noted (a syntax error, say).
            why = report.problem or ("; ".join(report.notes) if not report.score else "")
            name, problem = visible_name(students[path]), visible(why)  # a student chose the name
            breakout = report.breakout_score if report.sheets else ""
            totals = {part: score for part, (score, _) in report.totals().items()}
            row = {"submission": name, "total": report.score, **totals, **scores, BREAKOUT: breakout}
            rows.append(row | {"flags": " | ".join(report.flags), "problem": problem})
            # The whole reason, however long: the terminal wraps it, and a cut one says nothing.
            mark = f"  HELD for review: {visible(' | '.join(report.flags))}" if report.flags else f"  {problem}"
            extensions = "".join(f"  {c.id} {scores[c.id]:.2f}" for c in spec.EXTENSIONS if c.id in scores)
            progress.clear()
            print(
                f"{name[:24]:<24} {report.score:7.2f}  "
                + " ".join(f"{scores.get(i, 0.0):{widths[i]}.2f}" for i in COMPONENT_IDS)
                + f" {breakout if breakout == '' else f'{breakout:.2f}':>{widths[BREAKOUT]}}"
                + extensions
                + mark.rstrip(),
                flush=True,
            )
            progress.step(name)
            if args.report:
                graded.append((students[path], gradescope(report)))
            if args.json_dir:
                # The whole name, suffix and all: bob/, bob.evil/ and bob.ipynb each keep a report of their own. A file
                # the system refuses (a name too long once ".json" is added) costs that report alone, never the class.
                try:
                    options.write(
                        Path(args.json_dir) / f"{path.name}.json", results_json(report, args.format, args.visibility)
                    )
                except OSError as error:
                    print(f"{name}: its results.json could not be written ({visible(str(error))})", flush=True)
    return rows, graded


def _write_csv(path, rows):
    import csv

    from autograder.engine.judge.results import BREAKOUT

    # The extensions' columns, and the core's total apart from theirs, where some submission was graded on one: a
    # class of parts 1 to 8 keeps the columns it always had. A submission not graded on an extension has no cell there.
    extensions = [c.id for c in spec.EXTENSIONS if any(c.id in row for row in rows)]
    totals = ["core", "extensions"] if extensions else []
    # The breakout sheets' column likewise, where some submission handed sheets in.
    breakout = [BREAKOUT] if any(row.get(BREAKOUT, "") != "" for row in rows) else []
    columns = ["submission", "total", *totals, *COMPONENT_IDS, *extensions, *breakout, "flags", "problem"]
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, columns, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(
            {key: spreadsheet_safe(value) for key, value in row.items()}
            for row in sorted(rows, key=lambda row: row["submission"])
        )
    print(f"grades of {len(rows)} submissions written to {path}")


def run_report(args):
    from autograder import class_report

    if not Path(args.folder).is_dir():
        print(f"{args.folder} is not a folder: report takes a folder of results.json files (grade-all's --json-dir)")
        return 2
    students = class_report.read_folder(args.folder)
    if not students:
        print(f"nothing to report: {visible(args.folder)} holds no .json file")
        return 2
    # The folder holds results, and its name (reports/) says nothing of the class: the title is the instructor's.
    options.write(args.out, class_report.render(students, visible(args.title)))
    print(f"class report of {len(students)} submissions written to {args.out}")
    return 0


def spreadsheet_safe(value):
    """A CSV cell that no spreadsheet runs: text that begins like a formula gets a leading quote; numbers stay numbers."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def student_ids(paths):
    """{path: the student's id}, as class_report.student_names names them."""
    from autograder.class_report import student_names

    return dict(zip(paths, student_names([(p.name, p.is_file()) for p in paths])))
