"""The commands that build and check the course: `gradescope` (the package to upload), `check-solutions` (the
reference scores full marks and the release zero, and each breakout key is graded correct), `generate` (every
generated file, or their drift check) and `bundle` (what students receive)."""

from autograder import generated
from autograder.commands import options
from autograder.engine.contract import spec


def add(commands):
    package = commands.add_parser("gradescope", help="write a Gradescope autograder package (a .zip to upload)")
    package.add_argument("out", help="the package to write, a path ending in .zip")
    options.add_visibility(package)
    options.add_limits(package)
    package.set_defaults(run=run_gradescope)

    check = commands.add_parser("check-solutions", help="the reference scores full marks, the release zero")
    options.add_limits(check)
    check.set_defaults(run=run_check)

    generate = commands.add_parser(
        "generate",
        help="rebuild what is generated (stubs, fixtures, course notebooks, ...), the parts whose inputs changed",
    )
    generate.add_argument(
        "--part",
        action="append",
        choices=generated.PARTS,
        metavar="PART",
        help="build this part (again: several may be given), whatever its stamp says; one of "
        + ", ".join(generated.PARTS),
    )
    generate.add_argument(
        "--component",
        action="append",
        choices=generated.COMPONENTS,
        metavar="NAME",
        help="build this component's parts: fixtures:NAME, public:NAME and the sentences its catalog feeds",
    )
    generate.add_argument("--all", action="store_true", help="build every part, whatever the stamps say")
    generate.add_argument(
        "--check",
        action="store_true",
        help="rebuild aside (every part, or those given) and report whether the files are up to date "
        "(a built part found current is restamped)",
    )
    generate.add_argument("--jobs", type=int, help="processes to build parts on (default: one per core)")
    generate.set_defaults(run=run_generate)

    bundle = commands.add_parser("bundle", help="build what students receive: release notebooks and public checks")
    bundle.add_argument("out", help="a new folder, or a path ending in .zip")
    bundle.add_argument(
        "--quiz",
        action="store_true",
        help="also include the question bank, answers and all, for `python -m autograder quiz` "
        "(only where the breakout notebooks are not graded)",
    )
    bundle.set_defaults(run=run_bundle)


def run_gradescope(args):
    from autograder import gradescope

    if not args.out.endswith(".zip"):
        print(f"{args.out}: the package is a .zip archive; give a path ending in .zip")
        return 2
    arguments = [
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
    arguments += ["--unsafe-no-jail"] if args.unsafe_no_jail else []
    print(f"Gradescope autograder package written to {gradescope.build(args.out, arguments)}")
    return 0


def run_check(args):
    from autograder.course import notebooks
    from autograder.engine.judge.grade import grade
    from autograder.engine.judge.sandbox import Sandbox

    # The course notebooks hold the same exercises: their source must score full marks, their release zero.
    # One sandbox for the four, as grade-all shares one across a class: its zygote imports torch once.
    arguments = options.grade_args(args)
    sandbox = Sandbox(**arguments)
    try:
        solutions, release, source_notebooks, release_notebooks = (
            grade(path, sandbox=sandbox, **arguments)
            for path in (spec.SOLUTIONS, spec.ASSIGNMENTS, notebooks.SOURCE, notebooks.RELEASE)
        )
    finally:
        sandbox.close()
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
            f"check-solutions passed: reference {_scored(solutions)} "
            f"(integration check passing), untouched release {_scored(release)}; "
            f"course notebooks: source {_scored(source_notebooks)}, release {_scored(release_notebooks)}; "
            f"breakout questions: every key graded correct"
        )
    print("", solutions.table(), sep="\n")
    if release.score or release_notebooks.score:
        print("", release.table(), "", release_notebooks.table(), sep="\n")
    return 1 if problems else 0


def _scored(report):
    """ "score/max", the core's, then the extensions' where the report grades one."""
    totals = report.totals()
    said = "{:g}/{:g}".format(*totals["core"])
    return said + (" (extensions {:g}/{:g})".format(*totals["extensions"]) if report.extended else "")


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
    from autograder.breakout import bank

    named = [*(args.part or ()), *(p for c in args.component or () for p in generated.parts_of(c))]
    parts = generated.PARTS if args.all else named or None
    try:
        differ = [name for names in generated.generate(parts, args.check, args.jobs).values() for name in names]
    except bank.BankError as error:  # an instructor's edit to breakout_questions/: say where, change nothing more
        print(f"the question bank cannot be used: {error}")
        return 2
    if args.check:
        print("out of date: " + ", ".join(differ) + " (run: python -m autograder generate)" if differ else "up to date")
        return 1 if differ else 0
    print(f"generated: {len(differ)} file(s) written" if differ else "generated: every file was up to date")
    return 0


def run_bundle(args):
    from autograder import bundle

    try:
        print(f"student bundle written to {bundle.build(args.out, quiz=args.quiz)}")
    except FileExistsError as error:
        print(error)
        return 2
    return 0
