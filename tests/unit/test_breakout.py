"""The breakout question bank: its size and coverage, every numeric answer recomputed from real modules,
every choice key graded, malformed files refused with a message, and answers read as students write them."""

import itertools
import json
import math

import pytest
from support.breakout_facts import FACTS, reference

from autograder.breakout import bank
from autograder.breakout.questions import KINDS
from autograder.course import notebooks
from autograder.engine.contract import spec

PARTS = bank.load()
QUESTIONS = [q for part in PARTS for q in part.questions]


def by_kind(kind, verified=False):
    return [
        pytest.param(q, id=f"{q.number}-{q.id}")
        for q in QUESTIONS
        if q.kind == kind and (q.verified_by or not verified)
    ]


def test_bank_has_at_least_40_questions_of_every_kind():
    assert len(QUESTIONS) >= 40
    assert {q.kind for q in QUESTIONS} == set(KINDS)
    assert any(q.several for q in QUESTIONS) and any(q.kind == "choice" and not q.several for q in QUESTIONS)


def test_every_course_notebook_has_a_breakout_part():
    assert [p.name for p in PARTS] == [p.stem for p in notebooks.parts()]


@pytest.mark.parametrize("question", by_kind("numeric"))
def test_numeric_answer_matches_real_modules(question):
    computed = FACTS[question.verified_by]()
    assert math.isclose(computed, question.answer, abs_tol=question.tolerance + 1e-12), (
        f"{question.number} {question.id}: the bank says {question.answer}, the modules give {computed}"
    )


@pytest.mark.parametrize("question", by_kind("choice", verified=True))
def test_value_option_matches_real_modules(question):
    """An option that states a computed value (a shape) is the key exactly when it is that value."""
    computed = str(FACTS[question.verified_by]())
    assert [letter for letter, text in question.options.items() if text == computed] == sorted(question.answer)


def test_every_named_computation_is_used_and_exists():
    named = {q.verified_by for q in QUESTIONS if q.verified_by}
    assert named == set(FACTS)


@pytest.mark.parametrize("question", by_kind("choice"))
def test_choice_key_scores_and_every_other_choice_does_not(question):
    assert bank.judge(question, question.written_answer()).status == "correct"
    letters = list(question.options)
    sizes = range(1, len(letters) + 1) if question.several else [1]
    wrong = [set(c) for n in sizes for c in itertools.combinations(letters, n) if set(c) != question.answer]
    assert wrong and all(bank.judge(question, sorted(c)).status == "incorrect" for c in wrong)


@pytest.mark.parametrize("question", by_kind("numeric"))
def test_numeric_key_scores_and_a_value_outside_the_tolerance_does_not(question):
    assert bank.judge(question, question.written_answer()).score == question.points
    off = question.answer + 2 * question.tolerance + 1
    assert bank.judge(question, off).status == "incorrect"


GRADED = {q.id: q for part in bank.load(grade_short_answers=True) for q in part.questions}


@pytest.mark.parametrize("question", by_kind("short"))
def test_short_answers_carry_a_rubric_worth_their_points_when_graded(question):
    graded = GRADED[question.id]
    assert question.model_answer and math.isclose(sum(p for p, _ in question.rubric), graded.points)
    for asked in (question, graded):
        with pytest.raises(ValueError, match="graded by hand"):
            bank.judge(asked, "an answer")


def test_written_answers_are_for_discussion_unless_the_settings_grade_them():
    """No sheet waits for hand grading by default: a class of 300 once had 3,000 written answers to grade. With
    grade_short_answers they carry their points, and the quiz notebooks mark them for hand grading, as before."""
    from autograder.breakout import quiz_notebooks

    short = [q for q in QUESTIONS if q.kind == "short"]
    assert bank.settings() == {"grade_short_answers": False} and short
    assert all(q.discussion and q.points == 0 for q in short)
    assert sum(p.points for p in PARTS) == sum(q.points for q in QUESTIONS if q.autograded)
    assert not any(GRADED[q.id].discussion for q in short) and sum(GRADED[q.id].points for q in short) > 0

    def hand_graded(parts):
        cells = [json.loads(text)["cells"] for text in quiz_notebooks.expected_sources(parts).values()]
        meta = [c["metadata"].get("nbgrader", {}) for cs in cells for c in cs]
        return {m["grade_id"]: m["points"] for m in meta if m.get("grade") and m["grade_id"].startswith("answer-")}

    assert hand_graded(PARTS) == {}
    said = " ".join((spec.KIT_ROOT / "docs" / "INSTRUCTORS.md").read_text().split())
    assert f"{NUMBERS[len(short)]} such questions would otherwise be {300 * len(short):,} answers" in said
    assert f"worth its points ({sum(GRADED[q.id].points for q in short):g} in all)" in said
    assert hand_graded(bank.load(grade_short_answers=True)) == {f"answer-{q.id}": GRADED[q.id].points for q in short}


@pytest.mark.parametrize("question", by_kind("short"))
def test_a_discussion_shows_its_model_answer_once_answered_and_not_before(question, capsys):
    """The cell after the answer, as the release holds it: it decodes the model answer and why, and says nothing of
    them until the answer is written."""
    from autograder.breakout import quiz_notebooks

    release = json.loads((quiz_notebooks.RELEASE / quiz_notebooks.notebook_name(part_of(question))).read_text())
    (cell,) = [
        c for c in release["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == f"discuss-{question.id}"
    ]
    source = "".join(cell["source"])
    assert question.model_answer.splitlines()[0] not in source and question.explanation.splitlines()[0] not in source
    for answer in (None, "   ", "My answer."):
        namespace = {} if answer is None else {question.id: answer}
        exec(source, namespace)
        shown = capsys.readouterr().out
        if answer == "My answer.":
            assert shown == f"Model answer: {question.model_answer}\n\nWhy: {question.explanation}\n"
        else:
            assert "write your answer in the cell above" in shown and question.model_answer[:40] not in shown


NUMBERS = dict(enumerate(["None", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]))


def part_of(question):
    return next(part for part in PARTS if question in part.questions)


@pytest.mark.parametrize(
    "settings, message",
    [
        ("grade_short_answers: yes please\n", "grade_short_answers is bool, such as False"),
        ("grade_short_anwsers: true\n", "the settings are grade_short_answers"),
        ("- grade_short_answers\n", "the settings are grade_short_answers"),
    ],
)
def test_malformed_settings_are_refused_with_the_setting(tmp_path, settings, message):
    (tmp_path / "01_part.yaml").write_text(GOOD)
    (tmp_path / bank.SETTINGS).write_text(settings)
    with pytest.raises(bank.BankError, match=message) as error:
        bank.load(tmp_path)
    assert str(error.value).startswith(bank.SETTINGS)
    (tmp_path / bank.SETTINGS).write_text("grade_short_answers: true\n")
    assert bank.load(tmp_path)[0].minutes == 10


def test_the_material_s_false_claims_appear_only_as_claims_to_correct():
    claims = {"claim_cnn": "CNN", "claim_no_encoder": "encoder"}
    questions = {q.id: q for q in QUESTIONS}
    for qid, word in claims.items():
        question = questions[qid]
        assert "What is" in question.text and word in question.text
        (key,) = question.answer
        assert "Nothing" not in question.options[key] and "is right" not in question.options[key]


# --- answers as students write them -----------------------------------------------------------------

QUESTION = {q.id: q for q in QUESTIONS}
SINGLE, SEVERAL, NUMBER = QUESTION["scaling_purpose"], QUESTION["weighted_average"], QUESTION["mha_parameters"]


def stable_id(value):
    """The same test id in every process (pytest-xdist's workers compare them): a set's order is not."""
    return (
        value.id if isinstance(value, type(SINGLE)) else repr(sorted(value)) if isinstance(value, set) else repr(value)
    )


@pytest.mark.parametrize(
    "question, answer",
    [
        (SINGLE, "B"),
        (SINGLE, " b "),
        (SINGLE, ["B"]),
        (SEVERAL, ["A", "B"]),
        (SEVERAL, "A, B"),
        (SEVERAL, "b a"),
        (SEVERAL, "AB"),
        (SEVERAL, {"A", "B"}),
        (NUMBER, 2362368),
        (NUMBER, 2362368.0),
        (NUMBER, "2,362,368"),
        (NUMBER, "2_362_368"),
        (NUMBER, "2.362368e6"),
    ],
    ids=stable_id,
)
def test_correct_answers_in_every_written_form_score(question, answer):
    assert bank.judge(question, answer).status == "correct"


@pytest.mark.parametrize(
    "question, answer, message",
    [
        (NUMBER, "two million", "'two million' is not a number"),
        (NUMBER, True, "Give a number, not bool"),
        (NUMBER, float("nan"), "not a finite number"),
        (NUMBER, ["2362368"], "Give a number, not list"),
        (SINGLE, "E", "There is no option E: the options are A, B, C, D"),
        (SINGLE, "A C", "Only one option is correct here"),
        (SINGLE, 2, "Give letters as text"),
        (SINGLE, "", "No answer given"),
        (SINGLE, None, "No answer given"),
        (NUMBER, "   ", "No answer given"),
    ],
    ids=stable_id,
)
def test_malformed_answers_get_a_message_not_a_score(question, answer, message):
    verdict = bank.judge(question, answer)
    assert verdict.status == "invalid" and message in verdict.message and verdict.score == 0


def test_a_wrong_answer_is_told_the_key_and_the_explanation():
    verdict = bank.judge(SINGLE, "A")
    assert (
        verdict.status == "incorrect" and "the answer is B" in verdict.message and SINGLE.explanation in verdict.message
    )


@pytest.mark.parametrize(
    "wanted, name",
    [
        ("2", "02_multihead"),
        ("02", "02_multihead"),
        ("multihead", "02_multihead"),
        ("decoder", "06_decoder"),
        ("07_seq2seq", "07_seq2seq"),
    ],
)
def test_find_part_by_number_or_name(wanted, name):
    assert bank.find_part(PARTS, wanted).name == name


@pytest.mark.parametrize("wanted, message", [("11", "no part '11'; the parts are 01_attention"), ("e", "could be")])
def test_find_part_says_what_exists(wanted, message):
    with pytest.raises(bank.BankError, match=message):
        bank.find_part(PARTS, wanted)


# --- malformed question files ------------------------------------------------------------------------

GOOD = """\
title: A part
minutes: 10
questions:
  - id: first
    kind: choice
    question: Which?
    options:
      A: one
      B: two
    answer: A
    explanation: Because.
"""


@pytest.mark.parametrize(
    "edit, message",
    [
        (("answer: A", "answer: C"), "answer is an option's letter"),
        (("answer: A", "answer: [A, B]"), "every option is correct"),
        (("      B: two", "      C: two"), "lettered A, B, C"),
        (("      B: two", "      B: one"), "same text"),
        (("kind: choice", "kind: essay"), "kind must be one of choice, numeric, short"),
        (("id: first", "id: First-One"), "lower-case Python name"),
        (("    explanation: Because.\n", ""), "explanation must be a non-empty text"),
        (
            ("    question: Which?", "    question: Which?\n    tolerance: 1"),
            "a choice question has no field tolerance",
        ),
        (("      B: two", "      B: None: two"), "not valid YAML"),
        (("title: A part\n", ""), "title must be a non-empty text"),
        (("title: A part\n", "title: A part\nauthor: me\n"), "`title`, `minutes` and `questions` only, not author"),
        (("minutes: 10\n", ""), "minutes, how long the sheet takes a group, must be a whole number above 0"),
        (("minutes: 10\n", "minutes: half an hour\n"), "minutes, how long the sheet takes"),
    ],
    ids=lambda v: v if isinstance(v, str) else v[1][:30],
)
def test_malformed_question_files_are_refused_with_the_place(tmp_path, edit, message):
    (tmp_path / "01_part.yaml").write_text(GOOD.replace(*edit))
    with pytest.raises(bank.BankError, match=message) as error:
        bank.load(tmp_path)
    assert str(error.value).startswith("01_part.yaml")


@pytest.mark.parametrize(
    "body, message",
    [
        ("    kind: numeric\n    answer: 12\n", "needs verified_by"),
        ("    kind: numeric\n    answer: twelve\n    verified_by: f\n", "answer must be a number"),
        (
            "    kind: numeric\n    answer: 12\n    tolerance: -1\n    verified_by: f\n",
            "tolerance must be a number >= 0",
        ),
        (
            "    kind: short\n    points: 2\n    model_answer: M\n    rubric:\n      - points: 1\n        criterion: C\n",
            "add up to 1",
        ),
        ("    kind: short\n    model_answer: M\n", "rubric is a list"),
    ],
)
def test_malformed_numeric_and_short_questions_are_refused(tmp_path, body, message):
    (tmp_path / "01_part.yaml").write_text(
        f"title: T\nminutes: 5\nquestions:\n  - id: q\n    question: Q?\n    explanation: E.\n{body}"
    )
    with pytest.raises(bank.BankError, match=message):
        bank.load(tmp_path)


def test_duplicate_ids_and_badly_named_files_are_refused(tmp_path):
    (tmp_path / "01_a.yaml").write_text(GOOD)
    (tmp_path / "02_b.yaml").write_text(GOOD)
    with pytest.raises(bank.BankError, match="id first is used already in 01_a.yaml"):
        bank.load(tmp_path)
    (tmp_path / "02_b.yaml").rename(tmp_path / "part-two.yaml")
    with pytest.raises(bank.BankError, match="NN_words.yaml"):
        bank.load(tmp_path)
    with pytest.raises(bank.BankError, match="no question files"):
        bank.load(tmp_path / "empty")


def test_the_detached_layer_norm_key_counts_the_parameters_that_learn():
    """9.2's key once said the layer norms' own weights learn: with every layer norm cutting its input from the
    graph, only what follows the last one on the way to the loss gets a gradient (counted on part 9's model)."""
    import torch

    from autograder.course import public

    names = reference()
    layer_norm = names["LayerNorm"]
    forward = layer_norm.forward
    config = public.config(
        vocab_size=13,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=16,
    )
    try:
        layer_norm.forward = lambda self, x: forward(self, x.detach())
        model = names["Seq2SeqTransformer"](config, config)
        source, target = torch.randint(3, 13, (2, 5)), torch.randint(3, 13, (2, 6))
        model(source, target, torch.ones_like(source), torch.ones_like(target)).sum().backward()
    finally:
        layer_norm.forward = forward
    learning = [name for name, p in model.named_parameters() if p.grad is not None and p.grad.any()]
    total = len(list(model.parameters()))
    question = next(q for p in bank.load() for q in p.questions if q.id == "detached_layer_norm")
    (key,) = question.answer
    assert f"{len(learning)} of the model's {total} parameter tensors" in question.options[key], learning
    assert all(name.startswith("lm_head.") for name in learning), learning


def test_the_printable_sheets_ask_every_question_and_answer_none():
    """The students' sheets (issue 49: the handout was the instructors' alone, answers and all): a page per part, every
    question and option with room to answer, and not one explanation, model answer, rubric line or key."""
    import html
    import re

    from autograder.breakout import quiz_notebooks

    page = quiz_notebooks.SHEETS.read_text()
    assert page == quiz_notebooks.student_sheets(PARTS)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert page.count("<section>") == len(PARTS) and page.count("class='question'") == len(QUESTIONS)
    for question in QUESTIONS:
        assert " ".join(question.text.replace("`", "").split()) in text, question.id
        assert all(" ".join(option.replace("`", "").split()) in text for option in question.options.values())
        hidden = [question.explanation, question.model_answer or "", *(c for _, c in question.rubric)]
        for secret in filter(None, hidden):
            assert " ".join(secret.replace("`", "").split())[:60] not in text, question.id
    assert "Answer: " not in text.replace("Answer: ", "", sum(q.kind == "numeric" for q in QUESTIONS))
    assert "<script" not in page and "http" not in page  # prints offline, as it is
