"""What the question bank becomes: an nbgrader quiz notebook per part, the instructors' handout, and the printable
sheets for students.

A quiz notebook asks each question in a Markdown cell. A choice or numeric question is answered in a
code cell (`question_id = "B"`) and graded by the cell after it: its visible half checks that the
answer is there and of the right form, its hidden half grades it with the bank. A short answer is, by
default, for discussion: written in a code cell (a string, `question_id = "..."`), worth no points, and the
cell after it shows the model answer once the answer is written. With the bank's settings grading short
answers, it is written in a Markdown cell that an instructor grades by hand, with the handout's rubric.
"""

import html
import re

from autograder.breakout import bank
from autograder.course import notebooks, release
from autograder.course.notebooks import COURSE, dumps, nbgrader_metadata, notebook_cell
from autograder.engine.contract.loader import QUIZ_METADATA

ASSIGNMENT = "breakout"
SOURCE = COURSE / "source" / ASSIGNMENT
RELEASE = COURSE / "release" / ASSIGNMENT
HANDOUT = bank.BANK / "HANDOUT.md"
SHEETS = bank.BANK / "STUDENT_SHEETS.html"  # the printable sheets: every question, and no answer

INTRODUCTION = """\
Discuss each question in your group, then answer it in the cell below it.

- **Choice questions**: set the variable to the letter of your option in quotes, such as `"B"`.
  Where several options are correct (the question says so), give a list, such as `["A", "C"]`.
- **Numeric questions**: set the variable to a number, such as `1000` or `0.25`.{written}

Run the cell after each choice or numeric answer: it tells you whether your answer can be graded (not
whether it is right). Each question's explanation comes with your feedback after grading."""
WRITTEN = {  # the line on written answers, for a sheet that has them
    "discussion": "\n- **Discussion questions**: write a few sentences between the triple quotes and run the cell, then\n"
    "  the cell after it: it shows a model answer to compare with yours. They carry no points.",
    "graded": "\n- **Short answers**: write a few sentences in the text cell; your instructor grades them by hand.",
}


def notebook_name(part):
    return f"{part.name}.ipynb"


def source_notebook(part):
    """The nbgrader source notebook of one part of the bank, as a dict."""
    written = "".join(
        {WRITTEN["discussion" if q.discussion else "graded"] for q in part.questions if q.kind == "short"}
    )
    cells = [
        notebook_cell(
            "markdown",
            f"{part.name}-intro",
            f"# Breakout {part.number}: {part.title}\n\n{INTRODUCTION.format(written=written)}\n\n"
            f"{_size(part)}\n\n{notebooks.KERNEL_NOTE}",
        )
    ]
    for question in part.questions:
        cells.append(notebook_cell("markdown", f"{question.id}-question", _question_markdown(question)))
        cells += _answer_cells(question)
    return {
        "cells": cells,
        "metadata": {"kernelspec": notebooks.KERNELSPEC, "language_info": {"name": "python"}, QUIZ_METADATA: part.name},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _answer_cells(question):
    """The cells after a question's own: where it is answered, and what checks or shows it."""
    answer = nbgrader_metadata(f"answer-{question.id}", solution=True)
    if question.autograded:
        check = nbgrader_metadata(f"check-{question.id}", locked=True, points=question.points)
        return [
            notebook_cell("code", f"{question.id}-answer", _answer_source(question), answer),
            notebook_cell("code", f"{question.id}-check", _check_source(question), check),
        ]
    if question.discussion:
        discuss = nbgrader_metadata(f"discuss-{question.id}", locked=True)
        return [
            notebook_cell("code", f"{question.id}-answer", _discussion_answer_source(question), answer),
            notebook_cell("code", f"{question.id}-discuss", _discuss_source(question), discuss),
        ]
    by_hand = nbgrader_metadata(f"answer-{question.id}", solution=True, points=question.points)
    return [notebook_cell("markdown", f"{question.id}-answer", question.model_answer, by_hand)]


def _size(part):
    """About 25 minutes. 8 questions (1 for discussion), 7 points."""
    discussions = sum(q.discussion for q in part.questions)
    return (
        f"About {part.minutes} minutes. {len(part.questions)} questions"
        + (f" ({discussions} for discussion)" if discussions else "")
        + f", {part.points:g} points."
    )


def _heading(question):
    if question.discussion:
        return f"Question {question.number} (discussion, no points)"
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


def _discussion_answer_source(question):
    if '"""' in question.model_answer or "\\" in question.model_answer:
        raise bank.BankError(f"{question.part}, {question.id}: a model answer holds no triple quote and no backslash")
    return (
        f"# Question {question.number}: {question.id} = your answer, a few sentences between the triple quotes\n"
        "### BEGIN SOLUTION\n"
        f'{question.id} = """\n{question.model_answer}\n"""\n'
        "### END SOLUTION"
    )


def _discuss_source(question):
    return (
        "from autograder.notebook import discuss\n\n"
        f'discuss(globals(), {question.id!r}, {question.number!r}, """\n{bank.discussed(question)}""")'
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
        f"{total} questions in {len(parts)} parts, about {sum(p.minutes for p in parts)} minutes in all.",
        "",
    ]
    for part in parts:
        lines += [f"## Breakout {part.number}: {part.title}", "", f"After notebook `{part.name}`. {_size(part)}", ""]
        for question in part.questions:
            lines += [_question_markdown(question), ""]
            if question.kind == "short":
                rubric = (
                    "**Rubric.**" if question.points else f"**Rubric**, when `{bank.SETTINGS}` grades short answers:"
                )
                lines += ["**Model answer.** " + question.model_answer, "", rubric, ""]
                lines += [f"- {bank.points_text(points)}: {criterion}" for points, criterion in question.rubric]
                lines += [""]
            else:
                lines += [f"**Answer: {question.key()}.**", ""]
            lines += ["**Why.** " + question.explanation, ""]
    return "\n".join(lines).rstrip() + "\n"


PRINTED = """
body { font-family: Georgia, serif; max-width: 44em; margin: 2em auto; line-height: 1.45; }
section + section { break-before: page; } .question { break-inside: avoid; margin: 1.4em 0; }
h2 { margin-bottom: 0.2em; } .name { margin: 0.2em 0 1em; } .how { font-style: italic; }
ul.options { list-style: none; padding-left: 0.5em; } ul.options li { margin: 0.3em 0; }
.box { display: inline-block; width: 0.8em; height: 0.8em; border: 1px solid #000; margin-right: 0.6em; }
.line { display: inline-block; width: 12em; border-bottom: 1px solid #000; height: 1.2em; }
.written { height: 8em; border: 1px solid #888; border-radius: 3px; }
@media print { body { margin: 0 auto; } }
"""


def student_sheets(parts=None):
    """The printable sheets for students, one page per part: every question with room to answer, and no answer,
    explanation or rubric. Self-contained HTML (a browser prints it), the text as the notebooks show it."""
    parts = parts or bank.load()
    sections = []
    for part in parts:
        questions = "".join(_printed(question) for question in part.questions)
        sections.append(
            f"<section><h2>Breakout {part.number}: {_inline(part.title)}</h2>"
            f"<p class='name'>Name: <span class='line'></span></p><p>{_inline(_size(part))}</p>{questions}</section>"
        )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Breakout questions</title>"
        f"<style>{PRINTED}</style></head><body>\n<!-- Generated from breakout_questions/*.yaml by "
        "python -m autograder generate --part breakout: edit those files, not this one. -->\n"
        + "\n".join(sections)
        + "\n</body></html>\n"
    )


def _printed(question):
    if question.kind == "choice":
        room = (
            "<ul class='options'>"
            + "".join(
                f"<li><span class='box'></span><b>{letter}.</b> {_inline(text)}</li>"
                for letter, text in question.options.items()
            )
            + "</ul>"
        )
    elif question.kind == "numeric":
        room = (
            "<p>Answer: <span class='line'></span>" + (f" {_inline(question.unit)}" if question.unit else "") + "</p>"
        )
    else:
        room = "<div class='written'></div>"
    return (
        f"<div class='question'><h3>{_inline(_heading(question))}</h3><p>{_inline(question.text)}</p>{room}"
        f"<p class='how'>{_inline(question.instruction())}</p></div>"
    )


def _inline(text):
    """The bank's Markdown as HTML: its text is prose wrapped across lines, with `code`."""
    escaped = html.escape(" ".join(str(text).split()), quote=False)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def write(parts=None):
    parts = parts or bank.load()
    release.write_assignment(ASSIGNMENT, expected_sources(parts))
    HANDOUT.write_text(handout(parts))
    SHEETS.write_text(student_sheets(parts))


def drift():
    parts = bank.load()
    stale = [
        str(path.relative_to(bank.BANK.parent))
        for path, text in [(HANDOUT, handout(parts)), (SHEETS, student_sheets(parts))]
        if not path.exists() or path.read_text() != text
    ]
    return stale + release.assignment_drift(ASSIGNMENT, expected_sources(parts))
