"""The platforms' files and words, read without grading: the PrairieLearn example questions, the container flags
the jail needs, and the results.json of a hand-in with breakout sheets (tests/system/test_platforms.py grades)."""

import json
import re
from pathlib import Path

from autograder.course import notebooks
from autograder.engine.contract import spec
from autograder.engine.judge import jail, platforms
from autograder.engine.judge.results import BREAKOUT, ComponentResult, Report, Sheet
from autograder.engine.judge.run import TestResult

KIT = spec.KIT_ROOT
QUESTIONS = KIT / "prairielearn" / "questions"
DOCKERFILE = (KIT / "docker" / "Dockerfile").read_text()
IMAGE = [  # the command a container of the image runs: its ENTRYPOINT, then its CMD
    *json.loads(re.search(r"^ENTRYPOINT (.+)$", DOCKERFILE, re.M)[1]),
    *json.loads(re.search(r"^CMD (.+)$", DOCKERFILE, re.M)[1]),
]


def upload_names(question):
    """The file names a question's pl-file-upload takes."""
    (names,) = re.findall(r'<pl-file-upload optional-file-names="([^"]*)"', (question / "question.html").read_text())
    return [name.strip() for name in names.split(",")]


def test_each_prairielearn_question_runs_the_images_command_on_the_release_notebooks_names():
    folders = {"transformerNotebooks": notebooks.ASSIGNMENT, "breakoutSheets": "breakout"}
    assert sorted(p.name for p in QUESTIONS.iterdir()) == sorted(folders)
    uuids = set()
    for question, release in folders.items():
        info = json.loads((QUESTIONS / question / "info.json").read_text())
        grading = info["externalGradingOptions"]
        assert info["gradingMethod"] == "External" and grading["enabled"] and info["type"] == "v3"
        assert grading["entrypoint"] == IMAGE and IMAGE[IMAGE.index("--format") + 1] == "prairielearn"
        # PrairieLearn's limit is 600 s: the kit's own limit on a submission ends grading first, with results.
        assert 240 <= grading["timeout"] <= 600
        uuids.add(info["uuid"])
        assert upload_names(QUESTIONS / question) == sorted(
            p.name for p in (notebooks.COURSE / "release" / release).glob("*.ipynb")
        )
    assert len(uuids) == len(folders)


def test_a_jail_that_cannot_mount_proc_names_the_flags_of_both_engines():
    says = jail.why_not("bwrap: Can't mount proc on /newroot/proc: Operation not permitted")
    assert "could not mount its own /proc" in says and "install bubblewrap" not in says
    for flag in ("seccomp=unconfined", "systempaths=unconfined", "unmask=ALL"):
        assert flag in says and flag in jail.HOW_TO_INSTALL
    assert "install bubblewrap" in jail.why_not("bwrap: No permissions to create new namespace")
    platforms_doc = (KIT / "docs" / "PLATFORMS.md").read_text()
    assert "--security-opt systempaths=unconfined" in platforms_doc and "--security-opt unmask=ALL" in platforms_doc


def report(sheets, components=True):
    tests = [TestResult("t", True), TestResult("u", False, "m")]
    scored = [ComponentResult(c.id, c.points, tests) for c in spec.COMPONENTS] if components else []
    return Report("s", scored, [], 1.0, sheets=sheets)


SHEETS = [
    Sheet("01_attention", 7, 10, ["01_attention.ipynb: 7 of 10 points", "  question 1.2 ..."], waiting=2),
    Sheet("02_multihead", 3, 7, ["02_multihead.ipynb: 3 of 7 points"]),
]


def test_breakout_sheets_are_a_test_apart_from_the_codes_score_in_both_formats():
    with_code, alone = report(SHEETS), report(SHEETS, components=False)
    gradescope = platforms.gradescope(with_code)
    (breakout,) = [t for t in gradescope["tests"] if t["name"] == BREAKOUT]
    assert gradescope["score"] == with_code.score == spec.TOTAL_POINTS / 2 and gradescope["max_score"] == 100
    assert (breakout["score"], breakout["max_score"], breakout["status"]) == (10, 17, "failed")
    assert "2 more wait for your instructor" in breakout["output"] and "question 1.2" in breakout["output"]
    assert (platforms.gradescope(alone)["score"], platforms.gradescope(alone)["max_score"]) == (10, 17)
    prairielearn = platforms.prairielearn(with_code)
    assert prairielearn["score"] == 0.5 and prairielearn["tests"][-1]["points"] == 10
    assert platforms.prairielearn(alone)["score"] == round(10 / 17, 4)
    assert BREAKOUT not in json.dumps(platforms.gradescope(report([])))
    table = with_code.table()
    assert re.search(r"^breakout\s+10\.00 / 17", table, re.M) and "total" in table
    assert "component" not in alone.table() and "total" not in alone.table()


def test_the_package_and_the_image_carry_the_question_bank():
    ignored = (KIT / "docker" / "Dockerfile.dockerignore").read_text()
    assert "COPY breakout_questions/*.yaml ./breakout_questions/" in DOCKERFILE
    assert "!breakout_questions/*.yaml" in ignored
    assert Path(KIT / "breakout_questions" / "settings.yaml").exists()
