"""The hint ladders in a real kernel, and the release built with hints set to none (tests/unit/test_ladder.py
holds the rest)."""

import json

import pytest
from support.course_helpers import install_test_kernel, outputs, run_cells

from autograder import generated
from autograder.course import HINTS, ladder, notebooks, release, stubs
from autograder.engine.authoring import failure_hints, steps


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    return install_test_kernel(tmp_path_factory.mktemp("jupyter"))


def test_a_student_asks_each_level_of_a_step_in_a_kernel_and_a_failed_check_offers_the_last_reached(
    kernel_env, tmp_path
):
    ladder = json.loads(HINTS.read_text())["ladders"]["masked_scores"]
    assert len(ladder) >= 2
    cells = ["from autograder.notebook import hint"] + ['hint("masked_scores")'] * len(ladder)
    # A wrong step, as students write it: its check fails, and offers the level this kernel has reached.
    cells.append(
        "from autograder.notebook import check_step\n\n"
        "def masked_scores(scores, mask=None):\n"
        "    return scores if mask is None else scores.masked_fill(~mask, 0.0)\n\n"
        "check_step('masked_scores', masked_scores)"
    )
    nb = run_cells(cells, tmp_path, kernel_env)
    said = {index: output["text"] for index, output in outputs(nb, "stream") if output["name"] == "stdout"}
    for level, text in enumerate(ladder, 1):
        assert said[level].startswith(f"Hint {level} of {len(ladder)} for masked_scores: {text}"), said[level]
    assert f"Hint {len(ladder)} of {len(ladder)} for masked_scores: {ladder[-1]}" in said[len(ladder) + 1]
    assert [o["ename"] for _, o in outputs(nb, "error")] == ["Failed"]


def test_with_hints_set_to_none_the_built_release_and_its_data_hold_no_hint(tmp_path):
    """The release nbgrader makes of the source notebooks built under none, and the data the bundle ships of the
    sentences part under none, grepped for every level of every ladder, every step's hint and the notes."""
    source = tmp_path / "source"
    source.mkdir()
    for path, text in notebooks.expected_sources("none").items():
        (source / path.name).write_text(text)
    built = release.build_release(source, tmp_path / "course", notebooks.ASSIGNMENT)
    texts = {path.name: path.read_text() for path in built.glob("*.ipynb")}
    texts |= {path.name: text for path, text in generated.sentences("none").items()}
    assert len(texts) == len(notebooks.parts()) + 4
    ladders = json.loads(stubs.hints_table("on-request"))["ladders"]
    said = [level for levels in ladders.values() for level in levels] + [step.hint for step in steps.STEPS]
    said += [hint for topics in failure_hints.TOPICS.values() for hint in topics.values()]
    said += [note for note in notebooks.HINTS_NOTES.values() if note]
    for name, text in texts.items():
        found = [s for s in said if s in text or json.dumps(s, ensure_ascii=False)[1:-1] in text]
        assert found == [] and "# Hint" not in text and "import hint" not in text, (name, found)


def test_the_feedback_page_holds_the_ladder_of_the_likely_mistakes_exercise_one_click_per_level(monkeypatch):
    """A system test for nbgrader's import alone (seconds); the page is built in process."""
    from nbformat.v4 import new_output

    from autograder.engine.judge import hints
    from autograder.nbgrader import feedback

    def page(text):
        return feedback._as_html(new_output("stream", name="stdout", text=text), "grade-attention").data["text/html"]

    likely = f"Likely mistake: {hints.likely('attention/mask-inverted')}"
    shown = page(f"attention: 2 of 5 points.\n{likely}\n")
    levels = json.loads(HINTS.read_text())["ladders"]["scaled_dot_product_attention"]
    opened = [
        shown.index(f"<summary>Hint {n} of {len(levels)} for scaled_dot_product_attention</summary>") for n in (1, 2, 3)
    ]
    assert opened == sorted(opened) and shown.count("<details") == shown.count("</details>") == len(levels)
    assert ladder.mistakes_named(likely) == ["attention/mask-inverted"]
    assert "<details" not in page(f"attention: 5 of 5 points.\n{likely}\n")
    monkeypatch.setattr(ladder, "_table", lambda: {"mode": "none", "ladders": {}, "mistakes": {}})
    assert "<details" not in page(f"attention: 2 of 5 points.\n{likely}\n")
