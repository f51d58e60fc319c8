"""Public checks (what students run): the hidden suites on the public cases, in the student's process, one component
at a time. They report stubs as not started, and a crash or running out of memory as a failed check. Plus the
notebooks' helpers: earlier parts, pictures, the kernelspec. (Whole submissions, correct in every style or not, the
progress report on them, and the catalog's mistakes checked one by one: tests/system/test_public.py; that the
diagnosis names each from its numbers on the public cases: tests/unit/test_mutations.py.)"""

import json
import os
import re
import sys

import pytest
import torch
from support.helpers import catalog, submission, tiny_checkpoint

from autograder.course import failed_check, jupyter, pictures, public
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE


def check(component_id, names, quiet=True):
    return public.check(component_id, {n: names[n] for n in spec.BY_ID[component_id].names}, quiet=quiet)


def test_the_notebooks_checks_print_and_return_nothing(capsys):
    """A check cell's value would show as Out[], which nbgrader reads as the cell's partial credit."""
    names, _ = jupyter.load_names(spec.SOLUTIONS)
    assert public.check_masking(names["causal_mask"], names["padding_mask"]) is None
    assert capsys.readouterr().out.endswith("masking: all 2 public checks passed\n")


def test_the_environments_pytest_settings_stop_no_check(monkeypatch):
    """A PYTEST_ADDOPTS naming a plugin the student's Python cannot import stopped every check: "the suites did not
    run (pytest exit code 4)". The checks run their own pytest, and the environment's settings are put back."""
    names, _ = jupyter.load_names(spec.SOLUTIONS)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p a_plugin_nobody_installed")
    monkeypatch.setenv("PYTEST_PLUGINS", "another_plugin_nobody_installed")
    assert check("masking", names) == 2
    assert os.environ["PYTEST_ADDOPTS"] == "-p a_plugin_nobody_installed"
    assert os.environ["PYTEST_PLUGINS"] == "another_plugin_nobody_installed"


def test_stubs_are_not_started_and_say_where():
    names, _ = jupyter.load_names(spec.ASSIGNMENTS)
    with pytest.raises(public.NotStarted, match=r"attention\.py, line \d+ raises NotImplementedError"):
        check("attention", names)


def test_a_crash_is_a_failed_check_with_the_students_line(tmp_path, capsys):
    path = submission(tmp_path / "s", [("layernorm", "mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean(dim=5)")])
    names, _ = jupyter.load_names(path)
    with pytest.raises(public.Failed, match=r"IndexError: .*\(layernorm\.py, line \d+: mean = x\.mean\(dim=5\)"):
        check("layernorm", names, quiet=False)
    assert "✗" in capsys.readouterr().out


def test_running_out_of_memory_is_a_failed_check_not_the_graders_failure(tmp_path):
    """The student's own process has no memory limit of the grader's to quote: the check says what ran out, where."""
    path = submission(
        tmp_path / "s", [("layernorm", "mean = x.mean(dim=-1, keepdim=True)", "raise MemoryError('no room')")]
    )
    names, _ = jupyter.load_names(path)
    with pytest.raises(public.Failed, match=r"MemoryError: no room \(layernorm\.py, line \d+\)") as failed:
        check("layernorm", names)
    assert "the grader failed" not in str(failed.value)


def test_use_notebooks_binds_names_across_notebooks(tmp_path, capsys):
    from autograder.course import notebooks

    namespace = {}
    jupyter.use_notebooks(namespace, *(str(p) for p in sorted(notebooks.SOURCE.glob("0[1-4]*.ipynb"))))
    assert capsys.readouterr().out.startswith("using your ")
    config = public.config()
    output, weights = namespace["MultiHeadAttention"](config)(
        torch.randn(1, 3, config.hidden_size)
    )  # uses attention from 01
    assert weights.shape == (1, config.num_attention_heads, 3, 3)
    graded = [
        c.args[0] for part in notebooks.parts()[:4] for c in notebooks.parse(part.read_text()) if c.kind == "graded"
    ]
    assert set(namespace) == {n for c in graded for n in spec.BY_ID[c].names}


def test_attention_maps_catch_every_layer_and_head_of_minilm_by_default():
    names, _ = jupyter.load_names(spec.SOLUTIONS)
    tokens, maps = pictures.attention_maps(names["TransformerEncoder"], "Time flies like an arrow.")
    assert tokens == ["[CLS]", "time", "flies", "like", "an", "arrow", ".", "[SEP]"]
    assert maps.shape == (6, 12, 8, 8) and torch.allclose(maps.sum(-1), torch.ones(6, 12, 8))


def test_attention_maps_with_a_checkpoint_match_hugging_face(tmp_path):
    from transformers import BertModel, BertTokenizerFast

    folder = tiny_checkpoint(tmp_path, ["Time flies like an arrow."])
    names, _ = jupyter.load_names(spec.SOLUTIONS)
    tokens, maps = pictures.attention_maps(names["TransformerEncoder"], "Time flies like an arrow.", str(folder))
    model = BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    ids = BertTokenizerFast.from_pretrained(folder)("Time flies like an arrow.", return_tensors="pt")["input_ids"]
    expected = model(ids, output_attentions=True).attentions
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]" and len(maps) == len(expected)
    for got, want in zip(maps, expected):
        torch.testing.assert_close(got, want[0], atol=1e-5, rtol=1e-4)


def test_kernelspec_runs_this_python_with_the_kit_importable(tmp_path):
    kernel = json.loads((jupyter.kernelspec(tmp_path) / "kernel.json").read_text())
    assert kernel["argv"][:3] == [sys.executable, "-c", jupyter.LAUNCH]
    assert kernel["env"]["PYTHONPATH"] == str(spec.KIT_ROOT)


def test_use_notebooks_says_which_names_are_still_stubs(capsys):
    """An untouched notebook's classes are found, but not as the student's work: it once said "using your
    MultiHeadAttention" for a notebook nobody had opened."""
    from autograder.course import notebooks

    jupyter.use_notebooks({}, str(notebooks.RELEASE / "02_multihead.ipynb"))
    said = capsys.readouterr().out
    assert "using your" not in said and "not written yet: MultiHeadAttention" in said, said


KIT_FILES = str(spec.KIT_ROOT / "autograder")


def test_a_failed_check_says_what_to_change_then_its_first_case_then_counts(tmp_path, capsys):
    """The likely mistake came last, after up to 11 long lines, and the error repeated the first failure under a
    traceback into the kit's files (issue 46)."""
    mistake = mistakes.BY_ID["attention/scores-not-scaled"]
    names, _ = jupyter.load_names(submission(tmp_path / "s", catalog(mistake.id)))
    with pytest.raises(public.Failed) as failure:
        check("attention", names, quiet=False)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == LIKELY_MISTAKE + mistake.says
    # What to change is the likely mistake, then the level of the hint ladder that the mistake's edits point at.
    assert lines[1].startswith("Hint 1 of 3 for scaled_dot_product_attention: ")
    assert lines[2].startswith("✗ test_attention_matches_reference: case ") and "(" in lines[2]
    (more,) = [i for i, line in enumerate(lines) if re.fullmatch(r"    and \d+ more of its \d+ cases", line)]
    # The first failing case's lines, then a count, then a line per other check, none of them repeated.
    assert all(line.startswith("    ") for line in lines[3:more])
    assert all(re.fullmatch(r"✗ \w+: \d+ of \d+ cases fail|✓ \w+", line) for line in lines[more + 1 :]), lines
    assert sum(mistake.says in line for line in lines) == 1
    (error,) = failure.value._render_traceback_()
    assert (
        error == "Failed: attention: 0 of 3 public checks passed. What to change, then the first failing case: above."
    )
    assert not any(KIT_FILES in line or 'File "' in line for line in lines)


def test_outside_ipython_a_failed_check_ends_a_script_with_its_own_line_and_no_traceback(capsys):
    """A script that runs a check (python my_attention.py) ended with a traceback through the kit's files: Python's
    hook prints what a notebook prints, and anything not the student's doing as before."""
    failure = public.Failed("attention", 1, ["case 1: wrong"], told="what to change")
    failure.printed = True
    sys.excepthook(public.Failed, failure, failure.__traceback__)
    assert capsys.readouterr().err == (
        "Failed: attention: 1 of 2 public checks passed. What to change, then the first failing case: above.\n"
    )
    crash = ValueError("the kit's own")
    try:
        raise crash
    except ValueError:
        sys.excepthook(ValueError, crash, crash.__traceback__)
    said = capsys.readouterr().err
    assert said.startswith("Traceback (most recent call last):") and said.endswith("ValueError: the kit's own\n")


def test_a_shape_error_names_its_case_and_the_shape_expected(tmp_path, capsys):
    """The odd-width sinusoidal table got the bare RuntimeError, no hint, and no case (issue 46)."""
    edit = ("embeddings", "table[:, 1::2] = torch.cos(angles[:, : d_model // 2])", "table[:, 1::2] = torch.cos(angles)")
    names, _ = jupyter.load_names(submission(tmp_path / "s", [edit]))
    with pytest.raises(public.Failed):
        check("embeddings", names, quiet=False)
    lines = capsys.readouterr().out.splitlines()
    odd = re.fullmatch(
        r"Shapes do not fit on case (sinusoidal-(\d+)x(\d+)) \(sinusoidal_positional_encoding\(\2, \3\)\), whose "
        r"output is \((\d+), (\d+)\): follow each tensor's shape through your line "
        r"`table\[:, 1::2\] = torch.cos\(angles\)` \(line \d+\) for these sizes.",
        lines[0],
    )
    assert odd and odd.groups()[1:3] == odd.groups()[3:5] and int(odd[3]) % 2 == 1, lines[0]
    assert lines[1].startswith("Hint 1 of 3 for sinusoidal_positional_encoding: "), lines[1]
    assert lines[2].startswith(f"✗ test_sinusoidal_table_matches_paper: case {odd[1]} (") and "RuntimeError" in lines[2]


def test_a_wrong_call_names_the_caller_and_the_argument():
    """A bool tensor where no mask goes, or a float one where the mask goes, raised inside the part called."""

    def attend(hidden_states, mask=None, key_value_states=None):
        return hidden_states @ key_value_states.transpose(-2, -1)

    def layer(hidden_states, cross_mask):
        return attend(hidden_states, key_value_states=cross_mask)

    try:
        layer(torch.ones(2, 3, 4), torch.ones(2, 1, 1, 4, dtype=torch.bool))
    except RuntimeError as error:
        said = failed_check.wrong_call(error, set(jupyter.codes(layer)))
    assert said == (
        "Your layer passed a bool tensor (2, 1, 1, 4), its cross_mask, as key_value_states of your attend, where it "
        "fails: is it your mask?"
    )
    try:
        attend(torch.ones(2, 3, 4), key_value_states=torch.ones(2, 1, 1, 4, dtype=torch.bool))
    except RuntimeError as error:
        assert failed_check.wrong_call(error, set(jupyter.codes(attend))) is None  # the error of the part checked

    def project(x):
        return attend(x, key_value_states=x[..., :3])  # no argument of the wrong kind: each is shown

    try:
        project(torch.ones(2, 3, 4))
    except RuntimeError as error:
        said = failed_check.wrong_call(error, set(jupyter.codes(project)))
    assert re.fullmatch(
        r"The error is raised inside your attend, called by your project at your line `return attend\(x, "
        r"key_value_states=x\[\.\.\., :3\]\)  # .*` \(line \d+\), with hidden_states: float tensor \(2, 3, 4\), mask: "
        r"NoneType, key_value_states: float tensor \(2, 3, 3\): does each argument go where it is passed\?",
        said,
    ), said


def test_a_step_that_runs_a_failing_earlier_part_says_so_first(tmp_path, capsys):
    """attend runs the student's scaled_dot_product_attention: with that one wrong, attend's values read as its own
    mistake."""
    names, _ = jupyter.load_names(submission(tmp_path / "s", catalog("attention/scores-not-scaled")))
    attend = names["MultiHeadAttention"].forward.__globals__["attend"]
    with pytest.raises(public.Failed):
        public.check_step("attend", attend)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Your attention fails its own public checks (check_attention), and this part runs it")


def test_a_decorated_stub_is_found_unwritten_in_its_own_code():
    """beam_search's stub runs under @torch.no_grad(): the wrapper's code raised nothing, and the progress report
    named generation's other stubs to write but not it."""

    @torch.no_grad()
    def stub():
        raise NotImplementedError()

    @torch.no_grad()
    def written():
        return 1

    assert jupyter.unwritten_at(stub) == __file__ and jupyter.unwritten_at(written) is None
