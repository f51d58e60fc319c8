"""Exercises that state the contract, and hints in levels, asked for (course/ladder.py, course/stubs.py).

The stub cells of the release name at most a fifth of the library calls their solutions make; every exercise and
step has a ladder of two levels or more, written once above its solution region, and no stub or release cell
holds one; hint() gives the levels in turn under the course's setting, and a failed check offers the level of the
exercise that the evidence points to. (A kernel asking each level, and the release built with hints set to none:
tests/system/test_ladder.py.)
"""

import ast
import functools
import json
import re
import textwrap

import numpy as np
import pytest

from autograder import generated
from autograder.course import ladder, notebooks, stubs
from autograder.engine.authoring import failure_hints, mistakes, steps
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault, StudentError

# A word that the docstrings use as English ("convert to", "all rows", "the size", "one step", "an item"), whose
# call (.to(), .all(), .size(), optimizer.step(), .item()) is no operation a docstring gives away by naming it.
ENGLISH = {"to", "all", "size", "step", "item"}
# At most this share of the library calls the solutions make may be named by their stub cells (issue 46).
NAMED_AT_MOST = 0.20


@functools.cache
def on_request():
    """generated/hints.json's table as hints set to on-request give it, whatever the course's setting."""
    return json.loads(stubs.hints_table("on-request"))


def code_cells(folder, name):
    nb = json.loads((folder / name).read_text())
    return {cell["id"]: "".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "code"}


def regions(text):
    found, inside = [], None
    for line in text.splitlines():
        if line.strip() == stubs.BEGIN:
            inside = []
        elif line.strip() == stubs.END:
            found.append(textwrap.dedent("\n".join(inside)))
            inside = None
        elif inside is not None:
            inside.append(line)
    return found


def student_names():
    """What the student writes or is given by name: every top-level definition of the notebooks, and every
    attribute a constructor sets (self.query, self.encoder, ...), whose calls are the student's own."""
    own, attributes = set(), set()
    for path in notebooks.SOURCE.glob("*.ipynb"):
        for text in code_cells(notebooks.SOURCE, path.name).values():
            try:
                tree = ast.parse(text)
            except SyntaxError:  # a cell of IPython magic
                continue
            own |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
            attributes |= {
                target.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Assign)
                for target in node.targets
                if isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            }
    return own | attributes


def library_calls(code, own):
    """The library functions and methods code calls: a call of a bare name is of the student's own step, a
    submodule or a variable; a call on self, or of a name the student defines, is the student's own."""
    calls = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            on_self = isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
            if not on_self and node.func.attr not in own:
                calls.add(node.func.attr)
    return calls


def named_share():
    """(named, calls, {cell id: the calls its stub names}) over every exercise and step of the release."""
    own, named, total, where = student_names(), 0, 0, {}
    for path in sorted(notebooks.SOURCE.glob("*.ipynb")):
        release = code_cells(notebooks.RELEASE, path.name)
        for cell_id, text in code_cells(notebooks.SOURCE, path.name).items():
            calls = set().union(*(library_calls(code, own) for code in regions(text)))
            stub = release[cell_id]
            said = {c for c in calls if c not in ENGLISH and re.search(rf"\b{re.escape(c)}\b", stub)}
            named, total, where[cell_id] = named + len(said), total + len(calls), sorted(said)
    return named, total, where


def test_the_stubs_name_at_most_a_fifth_of_the_library_calls_their_solutions_make():
    named, total, where = named_share()
    assert total > 80  # every exercise and step was read
    assert named / total <= NAMED_AT_MOST, {cell: said for cell, said in where.items() if said}


def test_every_exercise_and_step_has_a_ladder_of_two_levels_or_more():
    table = on_request()["ladders"]
    exercises = {
        name
        for path in notebooks.parts()
        for c in notebooks.parse(path.read_text())
        if c.kind == "exercise"
        for name in c.args
    }
    with_regions = {n for n in exercises if stubs.BEGIN in notebooks._definitions([n], "test")}
    # The course extensions' names, written in their stubs (assignments/) until parts 9 and 10 grade them.
    extensions = {name for component in spec.EXTENSIONS for name in component.names}
    assert with_regions and with_regions | {step.name for step in steps.STEPS} | extensions == set(table)
    assert all(len(levels) >= 2 and len(set(levels)) == len(levels) for levels in table.values())


def test_no_stub_and_no_cell_of_the_release_holds_a_hint():
    texts = {path.name: path.read_text() for path in notebooks.RELEASE.glob("*.ipynb")}
    texts |= {path.name: path.read_text() for path in stubs.expected_stubs()}
    for path in notebooks.SOURCE.glob("*.ipynb"):  # which hold the solutions, so their last levels too
        assert "# Hint" not in path.read_text(), path.name
    levels = [level for ladder_ in on_request()["ladders"].values() for level in ladder_]
    for name, text in texts.items():
        assert "# Hint" not in text, name
        assert [level for level in levels if json.dumps(level)[1:-1] in text] == [], name


def test_with_hints_set_to_none_nothing_shipped_holds_a_hint():
    """The data shipped hold no level, no step's hint and no component's hint under a failing output; the notebooks say nothing of hints and import no hint()
    (the release nbgrader makes of them is grepped whole in tests/system/test_ladder.py)."""
    ladders = on_request()["ladders"]
    said = [*(level for levels in ladders.values() for level in levels), *(step.hint for step in steps.STEPS)]
    said += [hint for topics in failure_hints.TOPICS.values() for hint in topics.values()]
    for text in generated.sentences("none").values():
        assert [s for s in said if json.dumps(s, ensure_ascii=False)[1:-1] in text] == []
    notes = [note for note in notebooks.HINTS_NOTES.values() if note]
    for name, text in notebooks.expected_sources("none").items():
        assert not any(json.dumps(n, ensure_ascii=False)[1:-1] in text for n in notes) and "import hint" not in text, (
            name
        )
    assert "import hint" in notebooks.expected_sources("after-failure")[notebooks.SOURCE / "01_attention.ipynb"]
    assert json.loads(stubs.hints_table("none")) == {"mode": "none", "ladders": {}, "mistakes": {}}


def test_every_mistake_points_to_the_exercise_its_edits_change():
    table = on_request()
    assert set(table["mistakes"]) == set(mistakes.BY_ID)
    assert table["mistakes"]["attention/mask-inverted"] == ["scaled_dot_product_attention"]
    assert table["mistakes"]["layernorm/eps-outside-the-square-root"] == ["LayerNorm"]
    assert all(len(names) == 1 for names in table["mistakes"].values())


LADDERS = {"masked_scores": ["ask?", "operate.", "line"], "MultiHeadAttention": ["why?", "how."]}


@pytest.fixture
def table(monkeypatch):
    """The ladder module under a setting, its kernel's memory empty."""

    def under(mode):
        ladder._table.cache_clear()
        monkeypatch.setattr(
            ladder, "_table", lambda: {"mode": mode, "ladders": LADDERS, "mistakes": {"m/x": ["MultiHeadAttention"]}}
        )
        monkeypatch.setattr(ladder, "_shown", {})
        monkeypatch.setattr(ladder, "_opened", set())

    return under


def test_hint_gives_each_level_in_turn_and_then_the_last_again(table, capsys):
    table("on-request")

    def masked_scores(scores, mask=None):  # the student's own, asked about by itself
        return scores

    for asked in ("masked_scores", masked_scores, "masked_scores", "masked_scores"):
        ladder.hint(asked)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == [
        'ask? hint("masked_scores") for the next.',
        'operate. hint("masked_scores") for the next.',
        "line That is the last.",
        "line That is the last.",
    ]
    assert lines[0].startswith("Hint 1 of 3 for masked_scores")


def test_after_failure_a_hint_opens_once_a_check_has_failed(table, capsys):
    table("after-failure")
    ladder.hint("masked_scores")
    assert "open once one of its checks fails" in capsys.readouterr().out
    assert ladder.offer(("masked_scores",)) == 'Hint 1 of 3 for masked_scores: ask? hint("masked_scores") for the next.'
    ladder.hint("masked_scores")
    assert capsys.readouterr().out.startswith("Hint 2 of 3 for masked_scores: operate.")


def test_a_failed_check_offers_the_exercise_of_the_named_mistake_first(table):
    table("on-request")
    assert ladder.offer(("scaled_dot_product_attention",), ["masked_scores"], ["m/x"]).startswith(
        "Hint 1 of 2 for MultiHeadAttention: why?"
    )
    assert ladder.offer(("scaled_dot_product_attention",), ["masked_scores"]).startswith(
        "Hint 1 of 3 for masked_scores"
    )
    assert ladder.offer(("nothing",)) is None


def test_with_none_no_hint_is_given_or_offered(table, capsys):
    table("none")
    ladder.hint("masked_scores")
    assert "no hints" in capsys.readouterr().out and ladder.offer(("masked_scores",)) is None


@pytest.mark.parametrize(
    "source, problem",
    [
        ("    # Hint 1: a\n    ### BEGIN SOLUTION\n    x = 1\n    ### END SOLUTION\n", "two levels or more"),
        ("    # Hint 1: a\n    # Hint 3: b\n    ### BEGIN SOLUTION\n    x = 1\n    ### END SOLUTION\n", "two levels"),
        ("    # Hint 1: a\n    # Hint 2: b\n    x = 1\n", "not here"),
        ("def f():\n    # Hint 1: a\n    # Hint 2: b\n    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
        ("# Hint 1: a\n# Hint 2: b\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "outside any top-level"),
    ],
)
def test_malformed_ladders_are_refused(source, problem):
    with pytest.raises(KitFault, match=problem):
        stubs.ladders(source)


def test_with_hints_set_to_none_a_failing_output_reads_its_numbers_back_and_gives_no_hint(tmp_path, monkeypatch):
    """The suites ask the judge's table for a component's topic; under none it has none to give, and a check
    shows no "Hint:" line for an empty one. What reads the check's own numbers back (any component's) stays."""
    from autograder.engine.contract.messages import TENSOR
    from autograder.engine.judge import checks
    from autograder.engine.judge.hints import HINTS, failures

    (tmp_path / "failure_hints.json").write_text(failure_hints.table("none"))
    monkeypatch.setattr(failures, "FAILURE_HINTS", tmp_path / "failure_hints.json")
    failures._shipped.cache_clear()
    try:
        assert HINTS["attention"]["weights"] == "" and list(HINTS) == ["any"]
        assert HINTS["any"]["eval-first"] == failures.ANY["eval-first"]
        with pytest.raises(StudentError) as failed:
            checks.equal(
                {TENSOR: np.array([1, 2]), "dtype": "torch.int64"},
                np.array([1, 3]),
                "the output",
                "case",
                HINTS["attention"]["weights"],
            )
        assert "1 of 2 elements differ" in str(failed.value) and failures.HINT not in str(failed.value)
    finally:
        monkeypatch.undo()
        failures._shipped.cache_clear()
    assert HINTS["attention"]["weights"] == failure_hints.TOPICS["attention"]["weights"]
