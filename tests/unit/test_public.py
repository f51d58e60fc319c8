"""Public checks (what students run): the hidden suites on the public cases, in the student's process, one component
at a time. They catch and name the cataloged mistakes their cases show, and no other, and report stubs as not
started. Plus the notebooks' helpers: earlier parts, pictures, the kernelspec. (Whole submissions, correct in every
style or not, and the progress report on them: tests/system/test_public.py.)"""

import json
import sys

import pytest
import torch
from support import mutations
from support.helpers import submission, tiny_checkpoint
from support.hint_evidence import EVIDENCE, shown
from support.mutations import OUTSIDE, VARIANTS

from autograder.course import jupyter, pictures, public
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.hints import HINTS


def check(component_id, names, quiet=True):
    return public.check(component_id, {n: names[n] for n in spec.BY_ID[component_id].names}, quiet=quiet)


def test_the_notebooks_checks_print_and_return_nothing(capsys):
    """A check cell's value would show as Out[], which nbgrader reads as the cell's partial credit."""
    names, _ = jupyter.load_names(spec.SOLUTIONS)
    assert public.check_masking(names["causal_mask"], names["padding_mask"]) is None
    assert capsys.readouterr().out.endswith("masking: all 2 public checks passed\n")


def failed(tmp_path, component, edits):
    names, _ = jupyter.load_names(submission(tmp_path / "mutant", edits))
    with pytest.raises(public.Failed) as failure:
        check(component, names)
    assert failure.value.failures
    return failure.value


def publicly_named(mistake):
    return mistake.id in public.PUBLIC.evidence(mistake.component).entries


@pytest.mark.parametrize("mistake", mistakes.CATALOG, ids=lambda m: m.id)
def test_public_checks_catch_the_mistake_and_name_it(tmp_path, mistake):
    """On the public checks' own cases: a mistake whose evidence is shipped is named, and no other is; and no hint
    is said that the hidden suites' table holds unsupported by this mistake's numbers (hint_evidence.py)."""
    failure = failed(tmp_path, mistake.component, mutations.edits(mistake))
    assert failure.likely == (LIKELY_MISTAKE + mistake.says if publicly_named(mistake) else None)
    assert (failure.likely or "") in str(failure)
    unsupported = {name for name, (_, wrong) in EVIDENCE.items() if wrong == mistake.id}
    said = shown("\n".join(failure.failures))
    assert not said & unsupported, failure.failures


@pytest.mark.parametrize(
    "mistake, said",
    [
        ("feedforward/dropout-missing", True),
        ("feedforward/tanh-approximation-of-gelu", False),
        ("heads/dropout-after-the-classifier", True),
        ("heads/classifier-reads-the-last-position", False),
    ],
)
def test_a_train_mode_hint_is_said_only_where_the_values_are_right(tmp_path, mistake, said):
    """Where the values are wrong in eval mode, the train-mode output is wrong too, and its hint on where dropout
    goes sent a student with a wrong GELU to move their dropout: the suites say to fix eval mode first."""
    failures = failed(tmp_path, mistakes.BY_ID[mistake].component, mutations.edits(mistakes.BY_ID[mistake])).failures
    trained = next(f for f in failures if "_train" in f.split(":")[0])
    assert (
        ("Hint: " in trained and HINTS["any"]["eval-first"] not in trained)
        if said
        else HINTS["any"]["eval-first"] in trained
    ), trained


def test_public_checks_name_most_of_the_catalog():
    """Fewer than the hidden suites (two cases of a kind, where the hidden suites have up to eight), but most."""
    assert sum(map(publicly_named, mistakes.CATALOG)) / len(mistakes.CATALOG) >= 0.9


@pytest.mark.parametrize("shows, written, edits", [pytest.param(*v, id=f"{v[0]}-{v[1]}") for v in VARIANTS])
def test_public_checks_name_a_variant_as_its_mistake_or_not_at_all(tmp_path, shows, written, edits):
    mistake = mistakes.BY_ID[shows]
    failure = failed(tmp_path, mistake.component, mutations.variant_edits(mistake.component, edits))
    assert failure.likely in (None, LIKELY_MISTAKE + mistake.says)


@pytest.mark.parametrize("component, mistake, edits", [pytest.param(*o, id=f"{o[0]}-{o[1]}") for o in OUTSIDE])
def test_public_checks_name_no_mistake_outside_the_catalog(tmp_path, component, mistake, edits):
    assert failed(tmp_path, component, mutations.variant_edits(component, edits)).likely is None


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
