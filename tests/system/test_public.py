"""Public checks on whole submissions: every component of a correct one passes, in every style; every cataloged
mistake fails its component's checks and is named where its evidence ships, a variant as its mistake or not at all,
a mistake outside the catalog not at all (each a run of the checks, as the hidden suites' are graded in
tests/system/test_mutations.py); the progress report that `python -m autograder grade` prints in the bundle names
each component's verdict and the likely mistake; and the notebooks' kernel finds the kit of its own folder. (The
checks' own behaviour on one component: tests/unit/test_public.py; the diagnosis on the public cases' evidence:
tests/unit/test_mutations.py.)"""

import json
import os
import re
import subprocess
import sys

import pytest
from support import mutations
from support.helpers import STYLES, SUBMISSIONS, catalog, checked_names, lazy_submission, submission
from support.hint_evidence import EVIDENCE, shown
from support.mutations import OUTSIDE, VARIANTS

from autograder.course import jupyter, public
from autograder.course.progress import progress
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.hints import HINTS

KIT_FILES = str(spec.KIT_ROOT / "autograder")
CORRECT = [spec.SOLUTIONS, *(SUBMISSIONS / name for name in STYLES)]


def check(component_id, names, quiet=True):
    return public.check(component_id, checked_names(component_id, names), quiet=quiet)


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_public_checks_pass_on_correct_solutions(path):
    names, problems = jupyter.load_names(path)
    assert problems == []
    # The core, and each graded extension whose names the submission defines (the reference's training and generation).
    graded = [c for c in spec.ALL_COMPONENTS if spec.has_suite(c) and set(c.names) <= set(names)]
    assert set(spec.COMPONENTS) <= set(graded) and (path != spec.SOLUTIONS or set(spec.EXTENSIONS) <= set(graded))
    for component in graded:
        assert check(component.id, names) >= 2  # raises Failed or NotStarted otherwise


def test_public_checks_pass_on_d2l_code_and_lazy_modules(tmp_path):
    """nn.LazyLinear has no shape until its first call: seeded() read shapes it did not have, and every check of
    multi-head, feed-forward, heads, the encoder and the decoder raised "Can't access the shape of an
    uninitialized parameter" on d2l-style code that the hidden grading scores in full."""
    names, problems = jupyter.load_names(lazy_submission(tmp_path / "lazy"))
    assert problems == []
    for component in spec.COMPONENTS:
        check(component.id, names)


def failed(tmp_path, component, edits):
    names, _ = jupyter.load_names(submission(tmp_path / "mutant", edits))
    with pytest.raises(public.Failed) as failure:
        check(component, names)
    assert failure.value.failures
    return failure.value


def publicly_named(mistake):
    return mistake.id in public.PUBLIC.evidence(mistake.component).entries


@pytest.mark.parametrize(
    "mistake",
    mutations.representatives([(m.component, m.id, m.id, m) for m in mistakes.CATALOG], public.PUBLIC),
    ids=lambda m: m.id,
)
def test_public_checks_catch_the_mistake_and_name_it(tmp_path, mistake):
    """On the public checks' own cases: a mistake whose evidence is shipped is named, and no other is; and no hint
    is said that the hidden suites' table holds unsupported by this mistake's numbers (hint_evidence.py)."""
    failure = failed(tmp_path, mistake.component, mutations.edits(mistake))
    assert failure.likely == (LIKELY_MISTAKE + mistake.says if publicly_named(mistake) else None)
    assert (failure.likely or "") in str(failure)
    # What the student reads first is what to change: the mistake, or else a hint (a shape error on the case of
    # another config is told to read every size from the config first);
    # and nothing of the check's output, the error's line included, is a frame of the kit's files.
    first = str(failure).splitlines()[0]
    assert first == failure.likely if failure.likely else first.startswith("Hint: "), first
    assert not any(KIT_FILES in line or 'File "' in line for line in [str(failure), *failure._render_traceback_()])
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


@pytest.mark.parametrize("shows, written, edits", [pytest.param(*v, id=f"{v[0]}-{v[1]}") for v in VARIANTS])
def test_public_checks_name_a_variant_as_its_mistake_or_not_at_all(tmp_path, shows, written, edits):
    mistake = mistakes.BY_ID[shows]
    failure = failed(tmp_path, mistake.component, mutations.variant_edits(mistake.component, edits))
    assert failure.likely in (None, LIKELY_MISTAKE + mistake.says)


@pytest.mark.parametrize("component, mistake, edits", [pytest.param(*o, id=f"{o[0]}-{o[1]}") for o in OUTSIDE])
def test_public_checks_name_no_mistake_outside_the_catalog(tmp_path, component, mistake, edits):
    assert failed(tmp_path, component, mutations.variant_edits(component, edits)).likely is None


def test_progress_and_the_notebook_show_the_likely_mistake(tmp_path, capsys):
    mistake = mistakes.BY_ID["attention/scores-not-scaled"]
    path = submission(tmp_path / "mutant", mutations.edits(mistake))
    names, _ = jupyter.load_names(path)
    with pytest.raises(public.Failed):
        check("attention", names, quiet=False)
    assert LIKELY_MISTAKE + mistake.says in capsys.readouterr().out
    report = progress(path)
    # Then the ladder's line for the exercise the mistake is in: the bundle's grade offered none (issue 46).
    assert f"[attention] {LIKELY_MISTAKE}{mistake.says}\n  Hint 1 of 3 for scaled_dot_product_attention: " in report


def test_progress_lists_every_component(tmp_path):
    path = submission(tmp_path / "s", catalog("masking/causal-mask-upper-triangular"), drop=["seq2seq"])
    report = progress(path)
    assert "masking       1/2   FAILED" in report and "True at [i, j] exactly where j <= i" in report
    assert "seq2seq       not found: Seq2SeqTransformer, greedy_decode" in report
    # The decoder builds its causal mask with the student's causal_mask, so it fails with it.
    assert (
        re.search(r"decoder +\d/8   FAILED  \(it runs your masking", report)
        and "7 of 10 components pass every public check" in report
    )


@pytest.mark.parametrize("where", ["first", "second", "outside"])
def test_the_kernel_uses_the_kit_of_the_notebooks_own_folder(tmp_path, where):
    """Two copies of the bundle, the kernel installed from the first: a notebook in the second once ran the
    first one's code. Each now finds the kit above its own folder; one outside any finds the installing copy."""
    for copy in ("first", "second"):
        (tmp_path / copy / "autograder").mkdir(parents=True)
        (tmp_path / copy / "autograder" / "notebook.py").write_text("")
        (tmp_path / copy / "autograder" / "__init__.py").write_text(f"WHICH = {copy!r}\n")
        (tmp_path / copy / "transformer").mkdir()
    (tmp_path / "outside").mkdir()
    folder = tmp_path / where / "transformer" if where != "outside" else tmp_path / "outside"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "first"))
    code = jupyter.FIND_KIT + "; import autograder; print(autograder.WHICH)"
    run = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True)
    assert run.stdout.strip() == ("first" if where == "outside" else where), run.stdout + run.stderr


def test_progress_says_which_earlier_part_a_failure_may_come_from(tmp_path):
    """The public checks run the student's own earlier parts: with attention wrong, multi-head failed too, and
    the report read as if both were wrong (issue 27)."""
    path = submission(tmp_path / "s", catalog("attention/scaled-by-dh-instead-of-sqrt-dh"))
    rows = {line.split()[0]: line for line in progress(path).splitlines()[3:13]}
    assert "FAILED" in rows["attention"] and "it runs your" not in rows["attention"]
    assert (
        "FAILED" in rows["multihead"]
        and "(it runs your attention, which does not pass its own checks yet" in rows["multihead"]
    )
    assert rows["masking"].endswith("ok") and rows["feedforward"].endswith("ok")


def test_progress_blames_a_stub_on_the_part_whose_stub_it_is(tmp_path):
    """A part that is not written yet is told so alone; a finished part that calls it is told which."""
    stubs = {f"{c}.py": spec.BY_ID[c].stub.read_text() for c in ("layernorm", "embeddings")}
    rows = {line.split()[0]: line for line in progress(submission(tmp_path / "s", files=stubs)).splitlines()[3:13]}
    # embeddings' own stub raises, though it also runs the unwritten layer norm: it is told it is not started.
    assert "not started" in rows["embeddings"] and "it runs your" not in rows["embeddings"]
    assert (
        "not started" in rows["encoder"]
        and "(it runs your layernorm, embeddings, which do not pass their own checks yet" in rows["encoder"]
    )


def test_an_untouched_stub_is_reported_where_the_student_writes_it():
    """Jupyter numbers no cell, and markdown cells counted too: 'cell 8' could not be found, and seq2seq's row
    pointed at the encoder's notebook. Each row names the component's own notebook, its code cell counted among
    the code cells, and the cell's first line."""
    from autograder.course import notebooks

    rows = {line.split()[0]: line for line in progress(notebooks.RELEASE).splitlines()[3:13]}
    for component, notebook, first in [
        ("seq2seq", "07_seq2seq.ipynb", "class Seq2SeqTransformer(nn.Module):"),
        ("multihead", "02_multihead.ipynb", "class MultiHeadAttention(nn.Module):"),
    ]:
        cells = [c for c in json.loads((notebooks.RELEASE / notebook).read_text())["cells"] if c["cell_type"] == "code"]
        number = next(i for i, c in enumerate(cells, start=1) if "".join(c["source"]).startswith(first))
        assert f"not started: write {spec.BY_ID[component].names[0]}" in rows[component], rows[component]
        assert f'in {notebook}, code cell {number} ("{first}")' in rows[component], rows[component]


def test_a_wrong_call_between_two_of_the_students_parts_names_the_caller_and_the_argument(tmp_path, capsys):
    """A decoder layer that passed its memory where the mask goes was told TypeError: ~ (operator.invert) ... in
    01_attention's masked_scores, a part that passes its checks (issue 46)."""
    swap = (
        "decoder",
        "self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)",
        "self.cross_attention(hidden_states, encoder_hidden_states, key_value_states=cross_mask)",
    )
    names, _ = jupyter.load_names(submission(tmp_path / "s", [swap]))
    with pytest.raises(public.Failed):
        check("decoder", names, quiet=False)
    first = capsys.readouterr().out.splitlines()[0]
    assert re.fullmatch(
        r"Your TransformerDecoderLayer passed a float tensor \(\d+, \d+, \d+\), its encoder_hidden_states, as mask of "
        r"your MultiHeadAttention, where it fails: a mask is bool: is another argument in its place\?",
        first,
    ), first


def test_a_failure_that_follows_from_an_earlier_part_says_so_first(tmp_path, capsys):
    """In a notebook, multi-head attention run on a wrong attention read as a mistake of its own."""
    path = submission(tmp_path / "s", catalog("attention/scaled-by-dh-instead-of-sqrt-dh"))
    names, _ = jupyter.load_names(path)
    with pytest.raises(public.Failed) as failure:
        check("multihead", names, quiet=False)
    first = capsys.readouterr().out.splitlines()[0]
    assert failure.value.likely is None
    assert first.startswith("Your attention fails its own public checks (check_attention), and this part runs it")
