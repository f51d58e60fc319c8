"""Hostile submissions, the static check's part (child/scrutiny.py): it flags every way known to switch off the
delegation tripwire or reach the grader's internals, holding graded code that needs one and leaving scratch code
that does not unrun; and it flags nothing honest. Its verdict alone decides, and nothing runs to reach it. (That
the jail holds where the check is waved through: tests/system/test_hostile.py.)"""

import pytest
from support.attacks import FLAGGED, SHEET, needed_by
from support.helpers import noted_as_expected, submission

from autograder.engine.contract import spec


def verdict_of(folder, files):
    from autograder.engine.child import scrutiny
    from autograder.engine.contract import loader

    return scrutiny.check(loader.load(submission(folder, files=files)))


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_reaching_for_the_grader_is_held_where_graded_code_needs_it(name, tmp_path):
    """The verdict is the static check's alone (the parse child's, computed here the same way): nothing runs."""
    component, code = FLAGGED[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": needed_by(component, code)})
    assert verdict.held.get(component), f"{name} was not held"
    assert verdict.skipped, f"{name}: the held code would still run"


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_reaching_for_the_grader_in_scratch_code_is_skipped_and_holds_nothing(name, tmp_path):
    component, code = FLAGGED[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": spec.BY_ID[component].reference.read_text() + code})
    assert verdict.held == {}, f"{name} held a component that does not need it"
    assert verdict.skipped and verdict.notes and "not run, since nothing graded needs" in verdict.notes[0], (
        f"{name} would run"
    )


def test_statements_the_check_skips_never_run():
    """runtime.load_modules runs a unit statement by statement and leaves out the ones the check skipped."""
    from autograder.engine.child import runtime

    code = "ran = []\nran.append(1)\nran.append(2); ran.append(3)\nran.append(4)\n"
    unit = {"module": "m", "label": "m.py", "code": code, "skip": [[2, 0], [3, 15]]}
    modules, problems = runtime.load_modules([unit])
    assert problems == [] and modules["m"].ran == [2, 4]


def test_honest_styles_are_not_flagged():
    from autograder.engine.child import scrutiny
    from autograder.engine.contract import loader

    for path in [
        spec.SOLUTIONS,
        *sorted((spec.KIT_ROOT / "tests" / "submissions").iterdir()),
        spec.KIT_ROOT / "course" / "source",
    ]:
        if path.name == "no_work":
            continue  # made-up answers, not honest work
        verdict = scrutiny.check(loader.load(path))
        assert (verdict.held, verdict.kernels) == ({}, {}), path
        assert noted_as_expected(verdict.notes, path.name), (path, verdict.notes)


def _with(component, *edits):
    """The reference of component with (old, new) text edits, each applied once."""
    code = spec.BY_ID[component].reference.read_text()
    for old, new in edits:
        assert code.count(old) == 1, old
        code = code.replace(old, new)
    return code


LAYERNORM_FORWARD = "        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias\n"
MULTIHEAD_INIT = "    def __init__(self, config):\n"
AUTOCAST_METHOD = (
    "    def forward_half(self, hidden_states):\n        with autocast():\n            return self(hidden_states)\n\n"
)
AUTOCAST_CODE = _with(
    "multihead",
    ("from torch import nn\n", "from torch import nn\nfrom torch.cuda.amp import autocast\n"),
    (MULTIHEAD_INIT, AUTOCAST_METHOD + MULTIHEAD_INIT),
)
# Honest constructs of real code (issue 47's wave), each held before: (component, its file, the notes it gets).
HELD_AT_USE = {
    "submodule_import": (
        "layernorm",
        _with("layernorm", ("import torch\n", "import torch\nimport torch.utils.checkpoint\n")),
        ["layernorm.py, line 4: torch.utils.checkpoint was not imported"],
    ),
    "final_in_an_annotation": (
        "multihead",
        _with(
            "multihead",
            ("from torch import nn\n", "from torch import nn\nfrom torch.jit import Final\n"),
            (MULTIHEAD_INIT, "    num_heads: Final[int]\n\n" + MULTIHEAD_INIT),
        ),
        ["multihead.py: 1 statement not run, since nothing graded needs it: line 5 imports torch.jit"],
    ),
    "autocast_in_a_method_never_called": (
        "multihead",
        AUTOCAST_CODE,
        [
            "multihead.py: 1 statement not run, since nothing graded needs it: line 5 imports torch.cuda.amp",
            # The line of the held construct's use, wherever the reference's own lines put it.
            f"multihead.py, line {AUTOCAST_CODE.splitlines().index('        with autocast():') + 1}: "
            "MultiHeadAttention.forward_half does not run, since no code calls it by name",
        ],
    ),
    "hasattr_with_a_name_no_value_has": (
        "layernorm",
        _with(
            "layernorm",
            (
                "        self.eps = eps\n",
                "        self.eps = eps\n        if hasattr(eps, 'embedding_size'):\n            self.eps = 0\n",
            ),
        ),
        [],
    ),
    "standard_exceptions": (
        "layernorm",
        _with(
            "layernorm",
            (
                LAYERNORM_FORWARD,
                "        try:\n"
                "            return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias\n"
                "        except (ImportError, RuntimeError, OSError) as error:\n"
                "            raise ArithmeticError('no layer norm') from error\n",
            ),
        ),
        [],
    ),
    "named_tuple_fields": (
        "layernorm",
        _with(
            "layernorm",
            ("import torch\n", "import collections\n\nimport torch\n"),
            ("class LayerNorm", 'Stats = collections.namedtuple("Stats", "mean variance")\n\n\nclass LayerNorm'),
            (
                LAYERNORM_FORWARD,
                "        stats = Stats(mean, var)\n"
                "        return self.weight * (x - stats.mean) / torch.sqrt(stats.variance + self.eps) + self.bias\n",
            ),
        ),
        [],
    ),
    "typed_named_tuple_and_namespace_fields": (
        "layernorm",
        _with(
            "layernorm",
            ("import torch\n", "import typing\nimport types\n\nimport torch\n"),
            ("class LayerNorm", 'Stats = typing.NamedTuple("Stats", [("centred", torch.Tensor)])\n\n\nclass LayerNorm'),
            (
                LAYERNORM_FORWARD,
                "        spread = types.SimpleNamespace(deviation=torch.sqrt(var + self.eps))\n"
                "        return self.weight * Stats(x - mean).centred / spread.deviation + self.bias\n",
            ),
        ),
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(HELD_AT_USE))
def test_a_construct_no_graded_code_evaluates_holds_nothing(name, tmp_path):
    """The contract's "held where it is used": each of these was held, and is not; what does not run is noted."""
    component, code, notes = HELD_AT_USE[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": code})
    assert verdict.held == {}
    assert len(verdict.notes) == len(notes)
    assert all(note.startswith(start) for note, start in zip(verdict.notes, notes)), verdict.notes


# The same constructs, where graded code does evaluate them: held.
USED = {
    "submodule_import": (
        "layernorm",
        _with(
            "layernorm",
            ("import torch\n", "import torch\nimport torch.utils.checkpoint\n"),
            (LAYERNORM_FORWARD, "        return torch.utils.checkpoint.checkpoint(torch.sqrt, var)\n"),
        ),
    ),
    "autocast_in_a_method_called": (
        "multihead",
        _with(
            "multihead",
            ("from torch import nn\n", "from torch import nn\nfrom torch.cuda.amp import autocast\n"),
            (MULTIHEAD_INIT, AUTOCAST_METHOD + MULTIHEAD_INIT),
            ("        source = hidden_states", "        self.forward_half\n        source = hidden_states"),
        ),
    ),
    "final_evaluated": (
        "multihead",
        _with(
            "multihead",
            ("from torch import nn\n", "from torch import nn\nfrom torch.jit import Final\n"),
            (MULTIHEAD_INIT, "    kind = Final\n\n" + MULTIHEAD_INIT),
        ),
    ),
    "an_attribute_nothing_declares": (
        "layernorm",
        _with("layernorm", (LAYERNORM_FORWARD, "        return x.variance\n")),
    ),
}


@pytest.mark.parametrize("name", sorted(USED))
def test_a_construct_graded_code_evaluates_is_held(name, tmp_path):
    component, code = USED[name]
    verdict = verdict_of(tmp_path / name, {f"{component}.py": code})
    assert list(verdict.held) == [component], verdict.held


def test_a_method_the_check_skipped_raises_where_it_is_called():
    """Called by a computed name, which the check cannot follow, a skipped method's body is a raise."""
    from autograder.engine.child import allowed, runtime

    code = "class Box:\n    def fine(self):\n        return 1\n\n    def held(self):\n        return 2\n"
    unit = {"module": "box", "label": "box.py", "code": code, "skip": [[5, 4]]}
    modules, problems = runtime.load_modules([unit], builtins=allowed.students_builtins())
    box = modules["box"].Box()
    assert problems == [] and box.fine() == 1
    with pytest.raises(NotImplementedError, match="held uses what grading does not run"):
        getattr(box, "he" + "ld")()


def test_annotations_of_student_code_are_never_evaluated():
    """The check does not read annotations: the child keeps them as text (postponed evaluation)."""
    from autograder.engine.child import allowed, runtime

    code = "import torch\n\nclass Box:\n    heads: undefined[int] = 2\n\n    def f(self, x: undefined) -> nothing:\n        return x\n"
    unit = {"module": "box", "label": "box.py", "code": code}
    modules, problems = runtime.load_modules([unit], builtins=allowed.students_builtins())
    assert problems == [] and modules["box"].Box.heads == 2 and modules["box"].Box().f(3) == 3


def test_a_submodule_outside_the_list_is_not_imported_and_its_package_is():
    import sys

    from autograder.engine.child import allowed

    name = "torch.utils.show_pickle"
    assert name not in sys.modules
    imported = allowed.students_builtins()["__import__"]
    assert imported(name, {}, {}, None, 0) is sys.modules["torch"]
    assert name not in sys.modules
    with pytest.raises(ImportError):
        imported("builtins", {}, {}, None, 0)


def test_a_quiz_sheet_goes_through_the_same_check():
    """server.answers runs a sheet's cells less what this verdict skips: a cell stops at its first."""
    from autograder.engine.child import scrutiny, server
    from autograder.engine.contract import loader

    units = [loader.Unit(server.ANSWERS, f"answer cell {n}", code) for n, code in enumerate(SHEET, 1)]
    verdict = scrutiny.check(loader.Submission(units, {}))
    assert {index: [line for line, _ in where] for index, where in verdict.skipped.items()} == {
        0: [1, 2],
        1: [1],
        2: [1],
        3: [1],
        4: [1, 2],
    }
