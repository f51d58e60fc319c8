"""The student bundle: exactly what students receive, built by `python -m autograder bundle OUT`.

It holds the release notebooks (the coding parts and the breakout quizzes), the modules they and the
student's local loop need (public checks, pictures, loading, the quiz's format check), a README and the
requirements. No reference, no hidden case, no quiz answer: the modules are what students run and what
that imports, less what must never ship (NEVER), and the kit's tests check the result. With `quiz=True` it also holds the question bank,
answers included, for `python -m autograder quiz`: for courses that do not grade the breakouts.
"""

import ast
import shutil
import tempfile
import zipfile
from pathlib import Path

from autograder import notebook
from autograder.breakout import bank, quiz_notebooks
from autograder.course import CORPUS_FOLDER, HINTS, PUBLIC_CASES, notebooks
from autograder.engine.contract import spec
from autograder.engine.judge import hints
from autograder.engine.judge.run import SUITES

PACKAGE = spec.KIT_ROOT / "autograder"
# What students run: the package's command line, of which the student's commands (commands/student); the notebooks'
# facade and the modules it names (the public checks, pictures, part 9's and part 10's helpers, the quizzes' format
# check); and the hidden suites, which the public checks run by their path (judge/run.py) on the public cases, in the
# student's own process, with the child's own code. The modules the bundle ships are these and what they import in
# turn, found by reading their imports (student_modules()).
ROOTS = (
    "autograder.__main__",
    "autograder.notebook",
    *notebook.HOMES,
    "autograder.commands.student",
    *(f"autograder.engine.judge.suites.{path.stem}" for path in sorted(SUITES.glob("*.py"))),
)
# What never ships, nor anything only it imports: the instructor's commands; the catalog and the fixture builder,
# whose edits quote the reference; a jailed grading (its session, the sandbox, the jail): nothing of the student's
# is jailed at home. A shipped module may import one of these where the instructor alone runs it (the suites'
# conftest, for a jailed run given --submission).
NEVER = (
    "autograder.commands.grading",
    "autograder.commands.building",
    "autograder.engine.authoring",
    "autograder.engine.judge.session",
    "autograder.engine.judge.sandbox",
    "autograder.engine.judge.jail",
)


def student_modules(roots=ROOTS, never=NEVER):
    """The files of the kit modules the roots import, transitively, with the package of each, read from their
    imports (inside functions too: the facade and the commands import lazily), but those in never or below them;
    paths in the package, sorted."""
    found, pending = {}, list(roots)
    while pending:
        name = pending.pop()
        if name in found or any(name == gone or name.startswith(gone + ".") for gone in never):
            continue
        path = _file_of(name)
        if path is None:  # a name imported from a module, not a module
            continue
        found[name] = path
        parts = name.split(".")
        pending += [".".join(parts[:i]) for i in range(1, len(parts))]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                pending += [alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE.name]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE.name:
                pending += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return tuple(sorted({str(path.relative_to(PACKAGE)) for path in found.values()}))


def _file_of(name):
    """The file of a module of the package (its __init__.py for a package), or None."""
    relative = PACKAGE.joinpath(*name.split(".")[1:])
    for path in (relative.with_suffix(".py"), relative / "__init__.py"):
        if path.is_file():
            return path
    return None


# The package's files in the bundle: the student's modules, and the suites' pytest settings.
STUDENT_MODULES = (*student_modules(), str((SUITES / "pytest.ini").relative_to(PACKAGE)))
# The data the notebooks read, by their paths in the kit: the public cases, with each mistake's evidence on them;
# of the catalog, which quotes the reference, the sentences alone; the hints under the course's setting; part 10's corpus.
STUDENT_DATA = tuple(
    str(path.relative_to(spec.KIT_ROOT))
    for path in (
        *sorted(PUBLIC_CASES.glob("*.*")),
        hints.MISTAKE_SENTENCES,
        hints.STEP_HINTS,
        hints.FAILURE_HINTS,
        HINTS,
        *sorted(CORPUS_FOLDER.glob("*.*")),
    )
)
# requirements.txt lists what students need first; from this line on, what only instructors need.
INSTRUCTOR_ONLY = "# Instructor-only"
README = notebooks.COURSE / "STUDENTS.md"


def requirements():
    text = (spec.KIT_ROOT / "requirements.txt").read_text()
    return text[: text.index(INSTRUCTOR_ONLY)]


def build(out, quiz=False):
    """Write the bundle to the folder out (which must not exist yet), or to a .zip archive; returns out."""
    out = Path(out)
    if out.suffix == ".zip":
        return _zip(out, quiz)
    if out.exists():
        raise FileExistsError(f"{out} already exists; give a new folder or a .zip path")
    shutil.copytree(notebooks.RELEASE, out / notebooks.ASSIGNMENT)
    shutil.copytree(quiz_notebooks.RELEASE, out / quiz_notebooks.ASSIGNMENT)
    if quiz:
        (out / bank.BANK.name).mkdir()
        for path in sorted(bank.BANK.glob("*.yaml")):
            shutil.copy(path, out / bank.BANK.name / path.name)
    for name in STUDENT_MODULES:
        (out / "autograder" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / name, out / "autograder" / name)
    for name in STUDENT_DATA:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(spec.KIT_ROOT / name, out / name)
    shutil.copy(README, out / "README.md")
    (out / "requirements.txt").write_text(requirements())
    return out


def _zip(archive, quiz):
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / archive.stem, quiz)
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as file:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                file.write(path, path.relative_to(folder.parent))
    return archive
