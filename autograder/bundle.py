"""The student bundle: exactly what students receive, built by `python -m autograder bundle OUT`.

It holds the release notebooks (the coding parts and the breakout quizzes), the modules they and the
student's local loop need (public checks, pictures, loading, the quiz's format check), a README and the
requirements. No reference, no hidden case, no quiz answer: the modules are listed here
one by one, and the kit's tests check the result. With `quiz=True` it also holds the question bank,
answers included, for `python -m autograder quiz`: for courses that do not grade the breakouts.
"""

import shutil
import tempfile
import zipfile
from pathlib import Path

from autograder.breakout import bank, quiz_notebooks
from autograder.course import CORPUS_FOLDER, PUBLIC_CASES, notebooks
from autograder.engine.contract import spec
from autograder.engine.judge import hints

PACKAGE = spec.KIT_ROOT / "autograder"
# What the notebooks import (their facade, notebook.py, and the modules it names: the public checks, pictures, part
# 9's and part 10's helpers, the quizzes' format check), and what those import in turn: the public checks are the
# hidden suites' code (judge/suites, run, seams, checks, diagnosis, results, limits for the suites' options) run on the
# child's own code (child/server and what it loads) in the student's process, on the public cases
# (STUDENT_DATA); minilm and hf for part 5's pretrained BERT; the terminal quiz (offered only where the bank is). Of
# the command line, the student's commands alone (commands/student). No hidden case: of judge/fixtures, only the
# reader. No sandbox: nothing of the student's is jailed at home. Paths in the package.
STUDENT_MODULES = (
    "__init__.py",
    "__main__.py",
    "commands/__init__.py",
    "commands/student.py",
    "notebook.py",
    "engine/__init__.py",
    *(
        f"engine/contract/{name}.py"
        for name in (
            "__init__",
            "errors",
            "loader",
            "messages",
            "policy/__init__",
            "policy/language",
            "policy/libraries",
            "policy/values",
            "protocol",
            "reasons",
            "spec",
        )
    ),
    *(
        f"engine/child/{name}.py"
        for name in (
            "__init__",
            "allowed",
            "binding",
            "names",
            "plain",
            "runtime",
            "scan",
            "scrutiny",
            "server",
            "train_mode",
            "tripwire",
        )
    ),
    *(
        f"engine/judge/{name}.py"
        for name in (
            "__init__",
            "checks",
            "diagnosis",
            "hf",
            "hints/__init__",
            "hints/failures",
            "limits",
            "results",
            "run",
            "seams",
            "tolerances",
        )
    ),
    "engine/judge/fixtures.py",
    *(
        f"engine/judge/suites/{path.name}"
        for path in sorted((PACKAGE / "engine/judge/suites").iterdir())
        if path.suffix in (".py", ".ini")
    ),
    *(
        f"course/{name}.py"
        for name in (
            "__init__",
            "jupyter",
            "language_model",
            "local",
            "minilm",
            "pictures",
            "progress",
            "public",
            "training",
        )
    ),
    *(f"breakout/{name}.py" for name in ("__init__", "bank", "questions", "quiz")),
)
# The data the notebooks read, by their paths in the kit: the public cases, with each mistake's evidence on them;
# of the catalog, which quotes the reference, the sentences alone; part 10's corpus.
STUDENT_DATA = tuple(
    str(path.relative_to(spec.KIT_ROOT))
    for path in (
        *sorted(PUBLIC_CASES.glob("*.*")),
        hints.MISTAKE_SENTENCES,
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
