"""`python -m autograder quiz [PART]`: the breakout questions for self-study in a terminal.

It asks each question, checks the answer with the same judge as the quiz notebooks, explains, and
prints a score. An answer that is not of the question's form is explained and asked again; `skip`
moves on, `quit` (or end of input) stops and scores what was answered; Ctrl-C stops too, scores, and
ends the command with the interrupted status (130).
"""

import re
import textwrap

from autograder.breakout import bank

SKIP, QUIT = "skip", "quit"
HANGING = re.compile(r"\s*(?:[A-Z]\.|[-*])\s+")  # an option, or a list item
RULE = "-" * 72


class Quit(Exception):
    """The student asked to stop, or the input ended."""


class Interrupted(Quit):
    """Ctrl-C: the quiz stops as on quit, and the command says it was interrupted."""


def run(parts, read=None, write=print, width=None):
    """Quiz these parts in order; returns (points scored, points possible) over the autograded questions.

    width wraps the text to a terminal's columns (None: lines as written, for a pipe or a log). After Ctrl-C
    the score so far is written, and KeyboardInterrupt raised again for the command's exit status.
    """
    read = read or input  # looked up when called: a test, or a notebook, may have replaced it
    if width:
        write = _wrapping(write, width)
    scored = possible = 0.0
    stopped = interrupted = False
    write(
        f"{sum(len(p.questions) for p in parts)} questions. Type your answer and press Enter; "
        f"'{SKIP}' skips a question, '{QUIT}' stops."
    )
    try:
        for part in parts:
            write(f"\n{RULE}\nBreakout {part.number}: {part.title} (about {part.minutes} minutes)\n{RULE}")
            for question in part.questions:
                scored += _ask(question, read, write)
                # Counted once answered or skipped: a question the quiz stopped at was never answered.
                possible += question.points if question.autograded else 0
    except Quit as stop:
        stopped, interrupted = True, isinstance(stop, Interrupted)
    if stopped and not possible:
        write("\nStopped before any scored question was answered: no score.")
    else:
        write(
            f"\n{'Stopped. ' if stopped else ''}Score: {scored:g} of {possible:g} points"
            f"{' on the questions you answered or skipped' if stopped else ''}. "
            "Written answers are not scored here: compare yours with the model answer."
        )
    if interrupted:
        raise KeyboardInterrupt
    return scored, possible


def _wrapping(write, width):
    """write, with each line of text wrapped to width: an option's (A. ...) or a list item's continuation
    lines under its text, any other line's under its own indent."""

    def wrapped(text=""):
        lines = []
        for line in str(text).split("\n"):
            hang = HANGING.match(line) or re.match(r"\s*", line)
            assert hang is not None  # \s* matches every line
            lines.append(
                textwrap.fill(
                    line, width, subsequent_indent=" " * hang.end(), break_on_hyphens=False, break_long_words=False
                )
                if line.strip()
                else line
            )
        write("\n".join(lines))

    return wrapped


def _ask(question, read, write):
    kind = "discussion, no points" if question.discussion else f"{question.kind}, {bank.points_text(question.points)}"
    write(f"\nQuestion {question.number} ({kind})")
    write(question.text)
    for letter, text in question.options.items():
        write(f"  {letter}. {text}")
    write(question.instruction())
    while True:
        answer = _read(read)
        if answer.lower() == SKIP:
            write(f"Skipped. The answer: {question.key()}\n{question.explanation}")
            return 0
        if not question.autograded:
            if not answer:
                write(f"Write a few sentences (or '{SKIP}').")
                continue
            if question.discussion:
                rubric = "A full answer:\n" + "\n".join(f"  - {criterion}" for _, criterion in question.rubric)
            else:
                rubric = "Rubric:\n" + "\n".join(f"  - {bank.points_text(p)}: {c}" for p, c in question.rubric)
            write(f"Model answer: {question.model_answer}\n{rubric}\n{question.explanation}")
            return 0
        verdict = bank.judge(question, answer)
        if verdict.status == "invalid":
            write(f"{verdict.message} (or '{SKIP}')")
            continue
        write(verdict.message)
        return verdict.score


def _read(read):
    try:
        answer = read("> ")
    except EOFError:
        raise Quit from None
    except KeyboardInterrupt:
        raise Interrupted from None
    if answer.strip().lower() == QUIT:
        raise Quit
    return answer.strip()
