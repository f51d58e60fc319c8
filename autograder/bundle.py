"""The student bundle: exactly what students receive, built by `python -m autograder bundle OUT`.

It holds the release notebooks, the modules they and the student's local loop need (public checks,
pictures, loading), a README and the requirements. No reference, no hidden suite, no fixture: the
modules are listed here one by one, and the kit's tests check the result.
"""
import shutil
import tempfile
import zipfile
from pathlib import Path

from autograder import course, spec

PACKAGE = spec.KIT_ROOT / "autograder"
# What the notebooks import (public, pictures, notebook, hf for a checkpoint) and what those import in turn.
STUDENT_MODULES = (
    "__init__.py", "__main__.py", "checks.py", "hf.py", "loader.py", "notebook.py", "pictures.py", "protocol.py",
    "public.py", "runtime.py", "sandbox.py", "spec.py", "tolerances.py",
)
# requirements.txt lists what students need first; from this line on, what only instructors need.
INSTRUCTOR_ONLY = "# Instructor-only"
README = course.COURSE / "STUDENTS.md"


def requirements():
    text = (spec.KIT_ROOT / "requirements.txt").read_text()
    return text[: text.index(INSTRUCTOR_ONLY)]


def build(out):
    """Write the bundle to the folder out (which must not exist yet), or to a .zip archive; returns out."""
    out = Path(out)
    if out.suffix == ".zip":
        return _zip(out)
    if out.exists():
        raise FileExistsError(f"{out} already exists; give a new folder or a .zip path")
    shutil.copytree(course.RELEASE, out / course.ASSIGNMENT)
    (out / "autograder").mkdir()
    for name in STUDENT_MODULES:
        shutil.copy(PACKAGE / name, out / "autograder" / name)
    shutil.copy(README, out / "README.md")
    (out / "requirements.txt").write_text(requirements())
    return out


def _zip(archive):
    with tempfile.TemporaryDirectory() as tmp:
        folder = build(Path(tmp) / archive.stem)
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as file:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                file.write(path, path.relative_to(folder.parent))
    return archive
