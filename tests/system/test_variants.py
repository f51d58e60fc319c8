"""Correct implementations in styles unlike the reference get full marks: grading is fair to them.

Each submission in tests/submissions was written independently of the reference, in a style students
really use; the notebook student is built from the release by course_helpers.notebook_student. Every
one must score 100 through `grade-all` (graded once, as a class: its CSV and each one's results.json)
and, for notebooks, through the hidden cells that nbgrader runs, with no note: a note on a correct
submission is a false alarm.
"""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.course_helpers import NOTEBOOK_COMPONENTS, NOTEBOOK_POINTS, completed, notebook_student, with_scratch_cells
from support.helpers import (
    LAZY_COMPONENTS,
    STYLES,
    SUBMISSIONS,
    full_marks_except,
    lazy_submission,
    noted_as_expected,
    scores,
    submission,
)

from autograder.course import jupyter, notebooks
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE


@pytest.fixture(scope="module")
def notebook_student_folder(tmp_path_factory):
    """The course notebooks as a student working in them their own way hands them in."""
    return notebook_student(
        completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path_factory.mktemp("dave") / "transformer")
    )


@pytest.fixture(scope="module")
def class_graded(tmp_path_factory, notebook_student_folder):
    """Every style and the notebook student, graded once by `grade-all` as a class: the command's run,
    its CSV's totals, and the folder of each submission's results.json."""
    folder, out = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("grades")
    for name in STYLES:
        (shutil.copytree if (SUBMISSIONS / name).is_dir() else shutil.copy)(SUBMISSIONS / name, folder / name)
    shutil.copytree(notebook_student_folder, folder / "dave")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade-all",
            str(folder),
            "--csv",
            str(out / "grades.csv"),
            "--json-dir",
            str(out / "json"),
        ],
        capture_output=True,
        text=True,
        cwd=spec.KIT_ROOT,
    )
    with open(out / "grades.csv") as file:
        totals = {row["submission"]: float(row["total"]) for row in csv.DictReader(file)}
    return run, totals, out / "json"


@pytest.mark.parametrize("name", [*STYLES, "dave"])
def test_correct_style_gets_full_marks_without_a_note(class_graded, name):
    run, _, reports = class_graded
    report = json.loads((reports / f"{name}.json").read_text())
    # A style's file is the core; the completed notebooks also write the extensions of parts 9 and 10.
    assert report["score"] == report["max_score"] == (NOTEBOOK_POINTS if name == "dave" else 100), run.stdout
    (integration,) = [test for test in report["tests"] if test["name"] == spec.INTEGRATION]
    assert integration["status"] == "passed", integration["output"]
    assert report["output"] == "", "a note on a correct submission is a false alarm"
    assert all(LIKELY_MISTAKE not in test["output"] for test in report["tests"]), "a mistake named in correct code"


def test_every_style_gets_full_marks_from_grade_all(class_graded):
    run, totals, _ = class_graded
    assert run.returncode == 0, run.stdout + run.stderr
    # The CSV names a file's student without its suffix (typed_future.py -> typed_future).
    assert totals == dict.fromkeys([Path(name).stem for name in STYLES], 100.0) | {"dave": NOTEBOOK_POINTS}, run.stdout


# Each hidden cell starts a grader of its own (seconds): the first notebook, the one with two graded parts that uses
# four earlier notebooks, and the last graded one, which uses the six before it. The class grading above scores every
# part of his.
HIDDEN_CELLS_OF = ("01_attention.ipynb", "05_encoder_heads.ipynb", "07_seq2seq.ipynb")


def test_notebook_student_gets_the_hidden_cells_points(notebook_student_folder):
    """What a notebook's hidden cells run, as an instructor runs his notebook: it graded alone, a part at a time."""
    graded = [
        (path, cell["metadata"]["nbgrader"]["grade_id"].removeprefix("grade-"))
        for path in sorted(notebook_student_folder.glob("*.ipynb"))
        for cell in json.loads(path.read_text())["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade")
    ]
    # The notebooks grade the core's components and generation (part 9 teaches training's names ungraded as yet).
    assert sorted(component for _, component in graded) == sorted(c.id for c in NOTEBOOK_COMPONENTS)
    for path, component in graded:
        if path.name in HIDDEN_CELLS_OF:
            points = jupyter.grade_here(component, str(path))
            assert points == spec.BY_ID[component].points, f"{component} in {path.name}"


# Real public code (issue 34: a false hold is a bug of the policy), each fitted to the contract's names and made
# BERT-exact where it differs; the components it does not write are the reference's.
PUBLIC_CODE = {
    "llms_from_scratch_style.py": ("multihead", "layernorm", "feedforward"),
    "bert_pytorch_style.py": ("attention", "multihead", "layernorm", "feedforward", "encoder"),
    "labml_style.py": ("masking", "multihead", "feedforward"),
    # Issue 47's wave: with their boilerplate imports, held before where they were used or never.
    "hf_bert_style.py": ("multihead", "feedforward"),
    "espnet_style.py": ("multihead",),
    "timm_style.py": ("feedforward",),
    "uvadlc_style.py": ("attention",),
}


@pytest.mark.parametrize("name", sorted(PUBLIC_CODE))
def test_real_public_code_is_not_held_and_scores_full_marks(tmp_path, sandbox, name):
    # The reference's other files import the parts it writes by their own files' names: each re-exports it.
    module = Path(name).stem
    files = {
        name: (SUBMISSIONS / name).read_text(),
        **{f"{c}.py": f"from {module} import *\n" for c in PUBLIC_CODE[name]},
    }
    path = submission(tmp_path / "s", files=files)
    results, report = scores(path, sandbox=sandbox)
    assert not report.flags and noted_as_expected(report.notes, name), report.notes + report.flags
    assert full_marks_except(results) == [] and report.score == 100


def test_scratch_cells_outside_the_policy_cost_nothing(tmp_path, sandbox, notebook_student_folder):
    """Issue 34: plots, timings, progress bars and tables are not what grading runs; each such statement is left out
    with a one-line note, holds nothing, and the notebooks score full marks."""
    folder = with_scratch_cells(shutil.copytree(notebook_student_folder, tmp_path / "dave"))
    results, report = scores(folder, sandbox=sandbox)
    assert report.score == NOTEBOOK_POINTS and not report.flags, report.table()
    assert all("not run, since nothing graded needs" in note for note in report.notes[:-1]), report.notes
    assert report.notes[-1].startswith("and ") and "more cells or files" in report.notes[-1]
    first = "\n".join(note for note in report.notes if note.startswith("01_attention.ipynb"))
    assert all(f"imports {name}" in first for name in ("matplotlib.pyplot", "tqdm", "pandas", "os")), first


def test_files_named_like_libraries_are_ignored_and_named(tmp_path, sandbox):
    folder = tmp_path / "s"
    shutil.copytree(SUBMISSIONS / "package_style", folder)
    for name in ("torch", "numpy", "pytest", "autograder", "math"):
        (folder / f"{name}.py").write_text("raise SystemExit('a scratch file that hides a library')\n")
    results, report = scores(folder, sandbox=sandbox)
    assert report.score == 100, report.table()
    for name in ("torch", "numpy", "pytest", "autograder", "math"):
        assert any(note.startswith(f"{name}.py was not graded") and f"the real {name}" in note for note in report.notes)


def test_imports_inside_functions_find_the_submission(tmp_path, sandbox):
    """Importing one's own module inside a function works at call time, and still gets the reference."""
    path = submission(
        tmp_path / "s",
        [
            ("multihead", "from attention import scaled_dot_product_attention\n", ""),
            (
                "multihead",
                "        _, weights = scaled_dot_product_attention(q, k, v, mask)",
                "        from attention import scaled_dot_product_attention\n\n        _, weights = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ],
    )
    results, report = scores(path, components=["multihead"], sandbox=sandbox)
    assert results["multihead"].status == "passed", report.table()


def test_code_that_reads_bertconfigs_other_attributes_gets_full_marks(tmp_path, sandbox):
    """Hugging Face's own modeling_bert reads hidden_act, classifier_dropout and pad_token_id, which a config of
    the contract's keys alone lacked: its feed-forward and heads scored 0 (SPEC: the kit uses BertConfig)."""
    path = submission(
        tmp_path / "s",
        [
            (
                "feedforward",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.act = {'gelu': F.gelu}[config.hidden_act]",
            ),
            ("feedforward", "F.gelu(self.linear1(x))", "self.act(self.linear1(x))"),
            (
                "heads",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.classifier_dropout if config.classifier_dropout is not None "
                "else config.hidden_dropout_prob)",
            ),
            (
                "embeddings",
                "nn.Embedding(config.vocab_size, config.hidden_size)",
                "nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)",
            ),
        ],
    )
    results, _ = scores(path, components=["feedforward", "heads", "embeddings"], sandbox=sandbox)
    assert {c: r.score for c, r in results.items()} == {c: spec.BY_ID[c].points for c in results}, {
        c: r.feedback() for c, r in results.items() if r.score != r.points
    }


def test_d2l_code_and_lazy_modules_score_what_their_eager_twins_score(tmp_path, sandbox):
    """d2l builds its projections with nn.LazyLinear: the kit read their shapes before loading weights, and
    multi-head, feed-forward and heads scored 0 on "Can't access the shape of an uninitialized parameter".
    Its multi-head attention folds the heads into the batch, (B·H, T, Dh), and is right."""
    results, _ = scores(lazy_submission(tmp_path / "s"), components=list(LAZY_COMPONENTS), sandbox=sandbox)
    assert {c: r.score for c, r in results.items()} == {c: spec.BY_ID[c].points for c in results}, {
        c: r.feedback() for c, r in results.items() if r.score != r.points
    }


def _with_a_method_nothing_calls(call_it=""):
    """The multihead reference with a method that uses a held construct (autocast, from torch.cuda.amp), called by
    a computed name from forward where call_it says so."""
    code = spec.BY_ID["multihead"].reference.read_text()
    code = code.replace("from torch import nn\n", "from torch import nn\nfrom torch.cuda.amp import autocast\n", 1)
    method = "    def amp_forward(self, x):\n        with autocast():\n            return x\n\n"
    code = code.replace("    def __init__(self, config):\n", method + "    def __init__(self, config):\n", 1)
    return code.replace("        source = hidden_states", call_it + "        source = hidden_states", 1)


def test_a_method_no_code_calls_costs_nothing_and_a_computed_name_finds_it_held(tmp_path, sandbox):
    """The contract's "held where it is used", in the jail: the method's body is not run (the child put a raise in
    its place), so the component keeps its points with a note; reached by a computed name, it raises there."""
    path = submission(tmp_path / "uncalled", files={"multihead.py": _with_a_method_nothing_calls()})
    results, report = scores(path, sandbox=sandbox, components=["multihead"])
    assert results["multihead"].score == results["multihead"].points and not report.flags
    assert any("MultiHeadAttention.amp_forward does not run, since no code calls it by name" in n for n in report.notes)
    called = _with_a_method_nothing_calls("        getattr(self, 'amp_' + 'forward')(hidden_states)\n")
    results, _ = scores(
        submission(tmp_path / "called", files={"multihead.py": called}), sandbox=sandbox, components=["multihead"]
    )
    assert results["multihead"].score == 0
    assert "amp_forward uses what grading does not run" in results["multihead"].feedback()
