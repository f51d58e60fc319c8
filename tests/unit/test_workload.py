"""How long the course takes, stated once and checked wherever it is repeated: each step and exercise of a notebook
says its minutes and difficulty where it starts, `(10 min, medium)` (a step in its entry, engine/authoring/steps/,
which the notebook's heading of it says); the table at the top of the notebook sums them
per section, with the section's hardest difficulty; STUDENTS.md gives each notebook's total, and it and
INSTRUCTORS.md the course's, notebooks and breakout sheets (each sheet's `minutes` in its part file)."""

import re

import pytest

from autograder.breakout import bank
from autograder.course import notebooks
from autograder.engine.authoring import steps
from autograder.engine.contract import spec

LEVELS = ("easy", "medium", "hard")
MARK = re.compile(r"\((\d+) min, (easy|medium|hard)\)")
FENCE = re.compile(r"^```(?:step|exercise) ", re.M)
READING, IN_ALL = "reading, and running the examples", "in all"
PARTS = notebooks.parts()


def expanded(text):
    """A part's text with each ```steps block written out as the notebook shows it: each step's heading (its minutes
    and difficulty among them), then its cell."""

    def written(block):
        return "\n\n".join(
            f"{step.heading(number)}\n\n```step {step.name}\n```"
            for number, step in enumerate(steps.of(block.group(1)), 1)
        )

    return re.sub(r"^```steps (\w+)\n```", written, text, flags=re.M)


def sections(text):
    """[(heading, text)] of a part's `## ` sections, its steps written out."""
    return [(body.split("\n", 1)[0], body) for body in re.split(r"^## ", expanded(text), flags=re.M)[1:]]


def top_table(text):
    """[(what, minutes, difficulty)] of the table under a part's title."""
    title, rest = text.split("\n\n", 1)
    assert title.startswith("# Part") and rest.startswith("| this part | minutes | difficulty |\n|---|---|---|\n")
    rows = rest.split("\n\n", 1)[0].splitlines()[2:]
    return [tuple(cell.strip() for cell in row.strip("|").split("|")) for row in rows]


def minutes(path):
    return int(top_table(path.read_text())[-1][1])


@pytest.mark.parametrize("path", PARTS, ids=[p.stem for p in PARTS])
def test_every_step_and_exercise_says_its_minutes_and_difficulty_where_it_starts(path):
    text = path.read_text()
    assert not MARK.search(re.split(r"^## ", text, flags=re.M)[0]), "a time stated above the first section"
    for heading, body in sections(text):
        *before_each, after_the_last = FENCE.split(body)
        for chunk in before_each:
            assert len(MARK.findall(chunk)) == 1, f"{path.stem}, {heading}: say (N min, difficulty) once before each"
        assert not MARK.search(after_the_last), f"{path.stem}, {heading}: a time said after its last exercise"


@pytest.mark.parametrize("path", PARTS, ids=[p.stem for p in PARTS])
def test_each_notebook_opens_with_its_time_per_exercise_and_in_all(path):
    text = path.read_text()
    rows = top_table(text)
    expected = []
    for heading, body in sections(text):
        marks = MARK.findall(body)
        if marks:
            hardest = max((level for _, level in marks), key=LEVELS.index)
            expected.append((heading, str(sum(int(m) for m, _ in marks)), hardest))
    (first, reading, blank), *exercises, (last, total, none) = rows
    assert (first, blank, last, none) == (READING, "", IN_ALL, "") and int(reading) > 0
    assert exercises == expected
    assert int(total) == int(reading) + sum(int(m) for _, m, _ in exercises)


def test_the_readmes_give_each_notebook_its_time_and_the_course_its_total():
    students = (spec.KIT_ROOT / "course" / "STUDENTS.md").read_text()
    for path in PARTS:
        assert f"| `{path.stem}.ipynb` | {minutes(path)} |" in students, path.stem
    notebook_minutes = sum(minutes(path) for path in PARTS)
    breakout_minutes = sum(part.minutes for part in bank.load())
    said = (
        f"about {notebook_minutes} minutes ({notebook_minutes / 60:.0f} hours) of notebooks, and "
        f"{breakout_minutes} minutes ({breakout_minutes / 60:.0f} hours) of breakout"
    )
    for doc in (students, (spec.KIT_ROOT / "docs" / "INSTRUCTORS.md").read_text()):
        assert said in " ".join(doc.split())
    # The estimate a reviewer made of the course, trying it as a student: 13 to 17 hours, and 3 to 6.
    assert 13 * 60 <= notebook_minutes <= 17 * 60 and 3 * 60 <= breakout_minutes <= 6 * 60
