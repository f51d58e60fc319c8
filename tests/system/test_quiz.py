"""`python -m autograder quiz`, driven by scripted input as a student would type it."""

import subprocess
import sys

import pytest

from autograder.breakout import bank
from autograder.breakout import quiz as quiz_module

PARTS = bank.load()
MULTIHEAD = bank.find_part(PARTS, "multihead")


def typed(question):
    """The right answer as a student types it."""
    if question.kind == "choice":
        return ", ".join(sorted(question.answer))
    return str(question.answer) if question.kind == "numeric" else "Heads are a view of the features, then a transpose."


def answered(part, count):
    """The points of a part's first count questions that the quiz scores: answered or skipped, they count as
    possible; the question the quiz stopped at does not."""
    return sum(q.points for q in part.questions[:count] if q.autograded)


def quiz(*args, lines=()):
    return subprocess.run(
        [sys.executable, "-m", "autograder", "quiz", *args],
        input="".join(f"{x}\n" for x in lines),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_right_answers_score_every_point_and_show_explanations():
    run = quiz("2", lines=[typed(q) for q in MULTIHEAD.questions])
    assert run.returncode == 0 and run.stderr == ""
    autograded = [q for q in MULTIHEAD.questions if q.autograded]
    assert (
        f"Score: {sum(q.points for q in autograded):g} of {sum(q.points for q in autograded):g} points." in run.stdout
    )
    assert run.stdout.count("Correct.") == len(autograded)
    short = next(q for q in MULTIHEAD.questions if not q.autograded)
    assert short.model_answer.splitlines()[0] in run.stdout and short.rubric[0][1] in run.stdout
    # A discussion question, worth nothing: its model answer at once, its rubric as what a full answer says.
    assert f"Question {short.number} (discussion, no points)" in run.stdout
    assert (
        f"A full answer:\n  - {short.rubric[0][1]}" in run.stdout and "point: " + short.rubric[0][1] not in run.stdout
    )


def test_bad_answers_are_explained_and_asked_again():
    first = MULTIHEAD.questions[0]  # numeric
    second = MULTIHEAD.questions[1]  # one option
    run = quiz("multihead", lines=["two million", "", typed(first), "Z", "A B", "skip", "quit"])
    assert run.returncode == 0 and run.stderr == ""
    assert "'two million' is not a number. Give a number." in run.stdout
    assert "No answer given." in run.stdout
    assert f"There is no option Z: the options are {', '.join(second.options)}" in run.stdout
    assert "Only one option is correct here" in run.stdout
    assert f"Skipped. The answer: {second.key()}" in run.stdout
    assert (
        f"Stopped. Score: 1 of {answered(MULTIHEAD, 2):g} points on the questions you answered or skipped."
        in run.stdout
    )


def test_a_wrong_answer_gets_the_key_and_no_points():
    question = MULTIHEAD.questions[1]
    wrong = next(letter for letter in question.options if letter not in question.answer)
    run = quiz("2", lines=[typed(MULTIHEAD.questions[0]), wrong])
    assert f"Not correct: the answer is {question.key()}." in run.stdout
    assert f"Stopped. Score: 1 of {answered(MULTIHEAD, 2):g} points" in run.stdout


def test_end_of_input_stops_cleanly_with_the_score_so_far():
    """The question the input ended at was never answered: its points are not counted as possible (issue 49), and
    with nothing answered there is no score to give (it once said 0 of 0)."""
    run = quiz(lines=[])
    assert run.returncode == 0 and run.stderr == ""
    assert f"{sum(len(p.questions) for p in PARTS)} questions." in run.stdout
    assert "Stopped before any scored question was answered: no score." in run.stdout and "Score:" not in run.stdout
    first = PARTS[0].questions[0]
    assert first.autograded
    run = quiz(lines=[typed(first)])
    assert f"Stopped. Score: {first.points:g} of {first.points:g} points on the questions you answered" in run.stdout


@pytest.mark.parametrize("part, message", [("12", "no part '12'; the parts are 01_attention"), ("e", "could be")])
def test_an_unknown_part_is_a_message(part, message):
    run = quiz(part)
    assert run.returncode == 2 and message in run.stdout and "Traceback" not in run.stdout + run.stderr


def test_text_is_wrapped_to_the_terminal_with_options_hanging():
    part, question, option = next(
        (p, q, (k, v)) for p in PARTS for q in p.questions for k, v in q.options.items() if len(v) > 60
    )
    written = []
    lines = iter(["skip"] * part.questions.index(question) + ["quit"])
    quiz_module.run([part], read=lambda prompt: next(lines), write=written.append, width=50)
    text = "\n".join(written)
    assert all(len(line) <= 50 for line in text.splitlines() if " " in line.strip()), text
    head = f"  {option[0]}. "
    shown = text.splitlines()[next(i for i, line in enumerate(text.splitlines()) if line.startswith(head)) + 1]
    assert shown.startswith(" " * len(head)) and shown[len(head)] != " "  # under the option's text
    written.clear()  # without a width (a pipe, a log) the lines are as written
    lines = iter(["skip"] * part.questions.index(question) + ["quit"])
    quiz_module.run([part], read=lambda prompt: next(lines), write=written.append)
    assert f"{head}{option[1]}" in "\n".join(written)


def test_ctrl_c_scores_what_was_answered_and_exits_as_interrupted(monkeypatch, capsys):
    from autograder.__main__ import main

    answers = iter([typed(MULTIHEAD.questions[0])])

    def read(prompt):
        for answer in answers:
            return answer
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", read)
    assert main(["quiz", "2"]) == 130
    assert (
        f"Stopped. Score: 1 of {answered(MULTIHEAD, 1):g} points on the questions you answered or skipped."
        in capsys.readouterr().out
    )
