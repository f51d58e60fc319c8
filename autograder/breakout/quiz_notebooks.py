"""What the question bank becomes: an nbgrader quiz notebook per part, and the instructors' handout.

A quiz notebook asks each question in a Markdown cell. A choice or numeric question is answered in a
code cell (`question_id = "B"`) and graded by the cell after it: its visible half checks that the
answer is there and of the right form, its hidden half grades it with the bank. A short answer is
written in a Markdown cell that an instructor grades by hand, with the handout's rubric.
"""

from autograder.breakout import bank
from autograder.course import notebooks, release
from autograder.course.notebooks import COURSE, dumps, nbgrader_metadata, notebook_cell
from autograder.engine.contract.loader import QUIZ_METADATA

ASSIGNMENT = "breakout"
SOURCE = COURSE / "source" / ASSIGNMENT
RELEASE = COURSE / "release" / ASSIGNMENT
HANDOUT = bank.BANK / "HANDOUT.md"

INTRODUCTION = """\
Discuss each question in your group, then answer it in the cell below it.

- **Choice questions**: set the variable to the letter of your option in quotes, such as `"B"`.
  Where several options are correct (the question says so), give a list, such as `["A", "C"]`.
- **Numeric questions**: set the variable to a number, such as `1000` or `0.25`.
- **Short answers**: write a few sentences in the text cell; your instructor grades them by hand.

Run the cell after each answer: it tells you whether your answer can be graded (not whether it is right).
Each question's explanation comes with your feedback after grading."""


def notebook_name(part):
    return f"{part.name}.ipynb"


def source_notebook(part):
    """The nbgrader source notebook of one part of the bank, as a dict."""
    cells = [
        notebook_cell(
            "markdown",
            f"{part.name}-intro",
            f"# Breakout {part.number}: {part.title}\n\n{INTRODUCTION}\n\n"
            f"{len(part.questions)} questions, {part.points:g} points.\n\n{notebooks.KERNEL_NOTE}",
        )
    ]
    for question in part.questions:
        cells.append(notebook_cell("markdown", f"{question.id}-question", _question_markdown(question)))
        if question.autograded:
            cells.append(
                notebook_cell(
                    "code",
                    f"{question.id}-answer",
                    _answer_source(question),
                    nbgrader_metadata(f"answer-{question.id}", solution=True),
                )
            )
            cells.append(
                notebook_cell(
                    "code",
                    f"{question.id}-check",
                    _check_source(question),
                    nbgrader_metadata(f"check-{question.id}", locked=True, points=question.points),
                )
            )
        else:
            cells.append(
                notebook_cell(
                    "markdown",
                    f"{question.id}-answer",
                    question.model_answer,
                    nbgrader_metadata(f"answer-{question.id}", solution=True, points=question.points),
                )
            )
    return {
        "cells": cells,
        "metadata": {"kernelspec": notebooks.KERNELSPEC, "language_info": {"name": "python"}, QUIZ_METADATA: part.name},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _heading(question):
    kind = {"choice": "choice", "numeric": "numeric", "short": "short answer, graded by hand"}[question.kind]
    return f"Question {question.number} ({kind}, {bank.points_text(question.points)})"


def _question_markdown(question):
    lines = [f"### {_heading(question)}", "", question.text]
    if question.kind == "choice":
        lines += [""] + [f"- **{letter}.** {text}" for letter, text in question.options.items()]
    return "\n".join(lines + ["", f"*{question.instruction()}*"])


def _form(question):
    """What to write, without a sample value: a sample letter could read as a hint."""
    if question.kind == "numeric":
        return "a number" + (f" (in {question.unit})" if question.unit else "")
    return "a list of your options' letters, each in quotes" if question.several else "your option's letter, in quotes"


def _answer_source(question):
    return (
        f"# Question {question.number}: {question.id} = {_form(question)}\n"
        "### BEGIN SOLUTION\n"
        f"{question.id} = {question.written_answer()!r}\n"
        "### END SOLUTION"
    )


def _check_source(question):
    form = f'"{question.kind}"'
    if question.kind == "choice":
        form += f', options="{"".join(question.options)}"' + (", several=True" if question.several else "")
    elif question.unit:
        form += f", unit={question.unit!r}"
    return (
        "from autograder.notebook import check_format\n\n"
        f"check_format(globals(), {question.id!r}, {question.number!r}, {form})\n"
        "### BEGIN HIDDEN TESTS\n"
        "from autograder.notebook import grade_answer\n\n"
        f"grade_answer({question.part!r}, {question.id!r}, globals())\n"
        "### END HIDDEN TESTS"
    )


def expected_sources(parts=None):
    """{path under course/source/breakout: text} of every quiz notebook."""
    return {SOURCE / notebook_name(part): dumps(source_notebook(part)) for part in parts or bank.load()}


def handout(parts=None):
    """The instructors' handout: every question with its answer, explanation, and rubric, as Markdown."""
    parts = parts or bank.load()
    total = sum(len(p.questions) for p in parts)
    lines = [
        "# Breakout questions: the instructors' handout",
        "",
        "Generated from `breakout_questions/*.yaml` by `python -m autograder generate`; edit those files, not this one.",
        f"{total} questions in {len(parts)} parts.",
        "",
    ]
    for part in parts:
        lines += [
            f"## Breakout {part.number}: {part.title}",
            "",
            f"After notebook `{part.name}`. {len(part.questions)} questions, {part.points:g} points.",
            "",
        ]
        for question in part.questions:
            lines += [_question_markdown(question), ""]
            if question.kind == "short":
                lines += ["**Model answer.** " + question.model_answer, "", "**Rubric.**", ""]
                lines += [f"- {bank.points_text(points)}: {criterion}" for points, criterion in question.rubric]
                lines += [""]
            else:
                lines += [f"**Answer: {question.key()}.**", ""]
            lines += ["**Why.** " + question.explanation, ""]
    return "\n".join(lines).rstrip() + "\n"


def write(parts=None):
    parts = parts or bank.load()
    release.write_assignment(ASSIGNMENT, expected_sources(parts))
    HANDOUT.write_text(handout(parts))


def drift():
    parts = bank.load()
    stale = (
        []
        if HANDOUT.exists() and HANDOUT.read_text() == handout(parts)
        else [str(HANDOUT.relative_to(bank.BANK.parent))]
    )
    return stale + release.assignment_drift(ASSIGNMENT, expected_sources(parts))
