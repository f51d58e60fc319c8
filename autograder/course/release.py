"""An assignment's source notebooks written, and its student release made by nbgrader's generate_assignment: the
coding notebooks' (course/notebooks.py) and the breakout quiz sheets' (breakout/quiz_notebooks.py) alike."""

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.engine.contract import spec

COURSE = spec.KIT_ROOT / "course"


def build_release(source_dir, course_root, assignment):
    """Run nbgrader generate_assignment on source_dir, in a course directory at course_root.

    Returns the release folder. No gradebook is touched (--no-db), so this may run anywhere.
    """
    shutil.copytree(source_dir, course_root / "source" / assignment, dirs_exist_ok=True)
    shutil.copy(COURSE / "nbgrader_config.py", course_root / "nbgrader_config.py")
    command = [
        sys.executable,
        "-m",
        "nbgrader",
        "generate_assignment",
        assignment,
        "--no-db",
        "--force",
        f"--CourseDirectory.root={course_root}",
        "--log-level=ERROR",
    ]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(spec.KIT_ROOT), os.environ.get("PYTHONPATH")])))
    run = subprocess.run(command, cwd=course_root, env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{run.stdout}{run.stderr}")
    return course_root / "release" / assignment


def write_assignment(assignment, sources):
    """Write an assignment's source notebooks ({path: text}), then its release through nbgrader."""
    source, release = COURSE / "source" / assignment, COURSE / "release" / assignment
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for path, text in sources.items():
        path.write_text(text)
    with tempfile.TemporaryDirectory() as tmp:
        built = build_release(source, Path(tmp), assignment)
        shutil.rmtree(release, ignore_errors=True)
        shutil.copytree(built, release)


def assignment_drift(assignment, sources):
    """An assignment's course files that differ from what write_assignment(assignment, sources) would produce."""
    source, release = COURSE / "source" / assignment, COURSE / "release" / assignment
    changed = [str(p.relative_to(COURSE)) for p, text in sources.items() if not p.exists() or p.read_text() != text]
    changed += [str(p.relative_to(COURSE)) for p in sorted(set(source.glob("*")) - set(sources))]
    if changed or not source.exists():
        return changed or [f"source/{assignment}"]
    with tempfile.TemporaryDirectory() as tmp:
        built = build_release(source, Path(tmp), assignment)
        if not release.exists():
            return [f"release/{assignment}"]
        comparison = filecmp.dircmp(built, release)
        return [
            f"release/{assignment}/{n}" for n in comparison.diff_files + comparison.left_only + comparison.right_only
        ]
