"""The course notebooks: built from the parts and the reference, graded cells worth the SPEC's points,
every notebook runs top to bottom, and the release holds no solution and no hidden test."""

import json

import nbformat
import pytest
from support.course_helpers import completed, execute, execute_one_after_another, install_test_kernel, nbgrader, outputs

from autograder.course import notebooks
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault


def cells(folder):
    for path in sorted(folder.glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = cell["source"]
            yield path.name, {**cell, "source": "".join(source) if isinstance(source, list) else source}


def nbgrader_meta(cell):
    return cell["metadata"].get("nbgrader", {})


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    return install_test_kernel(tmp_path_factory.mktemp("jupyter"))


def test_every_component_has_one_graded_cell_worth_its_points():
    graded = [(name, nbgrader_meta(c)) for name, c in cells(notebooks.SOURCE) if nbgrader_meta(c).get("grade")]
    points = {meta["grade_id"].removeprefix("grade-"): meta["points"] for _, meta in graded}
    components = set(notebooks.GRADED.values())  # the core's, and each extension's whose suite exists
    assert set(spec.COMPONENTS) < components and set(spec.EXTENSIONS) <= components
    assert len(graded) == len(components)
    assert points == {c.id: c.points for c in components}
    assert sum(points[c.id] for c in spec.COMPONENTS) == spec.TOTAL_POINTS


def test_every_spec_name_is_an_exercise_exactly_once():
    exercises = [c["source"] for _, c in cells(notebooks.SOURCE) if nbgrader_meta(c).get("solution")]
    for name in notebooks.GRADED:  # an extension's names join once its part grades them (issue 48)
        defining = [s for s in exercises if f"def {name}(" in s or f"class {name}(" in s]
        assert len(defining) == 1, f"{name} is an exercise {len(defining)} times"


@pytest.mark.parametrize(
    "folder",
    [notebooks.SOURCE, notebooks.RELEASE, notebooks.SOURCE.parent / "breakout", notebooks.RELEASE.parent / "breakout"],
    ids=["source", "release", "source-quiz", "release-quiz"],
)
def test_notebooks_ask_for_the_kits_kernel_and_say_so_at_the_top(folder):
    """Opened in Jupyter's default python3 kernel, a notebook's first check stopped at a bare
    ModuleNotFoundError: the top of every notebook names the kernel and that error."""
    paths = sorted(folder.glob("*.ipynb"))
    assert paths
    for path in paths:
        notebook = json.loads(path.read_text())
        assert notebook["metadata"]["kernelspec"]["name"] == notebooks.KERNEL_NAME, path.name
        top = "".join("".join(cell["source"]) for cell in notebook["cells"][:2] if cell["cell_type"] == "markdown")
        assert notebooks.KERNEL_NOTE in top and notebook["metadata"]["kernelspec"]["display_name"] in top, path.name


def test_release_holds_no_solution_and_no_hidden_test():
    for name, cell in cells(notebooks.RELEASE):
        for secret in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "grade_here"):
            assert secret not in cell["source"], f"{name}: {secret}"
        if nbgrader_meta(cell).get("solution"):
            # The docstring states the contract; the hints come when asked (tests/unit/test_ladder.py).
            assert "raise NotImplementedError()" in cell["source"] and "# Hint" not in cell["source"], name


# One test per notebook, so that parallel workers share them out. The training notebooks, the longest to
# run, run in test_training_notebook and test_language_model, which check what the models learn too.
SOURCES = sorted(
    p for p in notebooks.SOURCE.glob("*.ipynb") if p.name not in ("09_train.ipynb", "10_language_model.ipynb")
)
RELEASES = sorted(notebooks.RELEASE.glob("*.ipynb"))


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_source_notebook_runs_clean_and_scores_full_marks(kernel_env, path):
    nb = execute(path, kernel_env)
    problems = outputs(nb, "error") + [(i, o) for i, o in outputs(nb, "stream") if o["name"] == "stderr"]
    assert problems == [], f"{path.name}: {problems}"
    scored, expected = {}, {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
            scored[meta["grade_id"]] = float(result["data"]["text/plain"])
            expected[meta["grade_id"]] = spec.BY_ID[meta["grade_id"].removeprefix("grade-")].points
    assert scored == expected


KIT_FILES = str(spec.KIT_ROOT / "autograder")
# A step written wrong (its odd width's shapes do not fit), and its check, as a student runs them.
WRONG_STEP = [
    "import torch\nfrom autograder.notebook import check_step",
    "def interleave_sin_cos(angles, d_model):\n"
    "    table = torch.zeros(angles.shape[0], d_model, dtype=angles.dtype)\n"
    "    table[:, 0::2] = angles.sin()\n"
    "    table[:, 1::2] = angles.cos()\n"
    "    return table",
    'check_step("interleave_sin_cos", interleave_sin_cos)',
]


def test_release_notebooks_fail_only_where_an_exercise_is_unwritten(kernel_env, tmp_path):
    """Every cell that is not an exercise is a source notebook's too, each of which runs in a fresh kernel above:
    what a release adds is how its stubs fail. So the releases share one kernel (ten fresh ones cost 33 s of CPU,
    one 15 s), each starting with none of the earlier ones' names; and after them, a step written wrong, whose
    check leads with what to change and fails its cell in one line, as nbconvert --execute and JupyterLab show it."""
    wrong = tmp_path / "wrong_step.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in WRONG_STEP]), wrong)
    ran = execute_one_after_another([*RELEASES, wrong], kernel_env)
    checked = ran.pop(wrong)
    checks_told = 0
    for path, nb in ran.items():
        errors = {o["ename"] for _, o in outputs(nb, "error")}
        assert errors <= {"NotImplementedError", "NotStarted"}, f"{path.name}: {errors}"
        # A check's error is its one line (errors.StudentFault's hook), no frame of the kit's files under it.
        told = [o["traceback"] for _, o in outputs(nb, "error") if o["ename"] == "NotStarted"]
        assert all(len(lines) == 1 and KIT_FILES not in lines[0] for lines in told), (path.name, told)
        checks_told += len(told)
        assert not [o for _, o in outputs(nb, "stream") if o["name"] == "stderr"], path.name
    assert checks_told >= len(spec.COMPONENTS)
    printed = "".join(o["text"] for _, o in outputs(checked, "stream")).splitlines()
    (error,) = [o for _, o in outputs(checked, "error")]
    assert printed[0].startswith("Shapes do not fit on case interleave_sin_cos-odd"), printed
    assert printed[0].endswith("through your line `table[:, 1::2] = angles.cos()` (line 4) for these sizes."), printed
    assert error["ename"] == "Failed" and len(error["traceback"]) == 1, error["traceback"]
    assert KIT_FILES not in error["traceback"][0] and "public checks passed" in error["traceback"][0]


def test_nbgrader_validate_fails_on_the_untouched_release_and_passes_when_complete(kernel_env, tmp_path):
    """nbgrader users validate before they submit: each test cell runs its component's public checks, so an
    unfinished notebook fails (the hidden tests alone were comments there, and validate said Success)."""
    done = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "done")
    release = nbgrader(tmp_path, kernel_env, "validate", str(notebooks.RELEASE / "01_attention.ipynb"))
    assert "VALIDATION FAILED ON 2 CELL(S)" in release.stdout and "is not written yet" in release.stdout, release.stdout
    complete = nbgrader(tmp_path, kernel_env, "validate", str(done / "01_attention.ipynb"))
    assert "Success! Your notebook passes all the tests." in complete.stdout, complete.stdout + complete.stderr
    # Part 9's graded cell too (completed, its public checks pass in tests/system/test_training_notebook.py's run).
    release = nbgrader(tmp_path, kernel_env, "validate", str(notebooks.RELEASE / "09_train.ipynb"))
    assert "VALIDATION FAILED ON 1 CELL(S)" in release.stdout and "is not written yet" in release.stdout, release.stdout


@pytest.mark.parametrize(
    "text, problem",
    [
        ("```javascript\nx\n```\n", "unknown block"),
        ("```python\nx = 1\n", "never closed"),
        ("```graded\n```\n", "takes one component id"),
        ("```exercise NotASpecName\n```\n```graded attention\n```\n", "not a SPEC name"),
        ("```exercise scaled_dot_product_attention\n```\n", "no ```graded block for attention"),
        (
            "```exercise scaled_dot_product_attention\n```\n```graded attention\n```\n",
            "needs the component's public checks",
        ),
    ],
)
def test_malformed_parts_are_refused(tmp_path, text, problem):
    part = tmp_path / "99_part.md"
    part.write_text(text)
    with pytest.raises(KitFault, match=problem):
        notebooks.source_notebook(part)


def test_the_notebooks_numbers_are_what_torch_computes():
    """Numbers the prose states, computed: the tanh GELU's largest difference from the exact one and where it
    falls, against the float32 tolerance there (once 'ten times more than the graders allow'), and part 9's loss
    baselines (once 'starts near ln 13' for a loss whose targets are 11 tokens)."""
    import math

    import torch
    from torch.nn import functional as F

    from autograder.engine.judge.tolerances import tolerance

    x = torch.linspace(-6, 6, 120001, dtype=torch.float64)
    difference = (F.gelu(x) - F.gelu(x, approximate="tanh")).abs()
    worst = difference.argmax()
    allowed = tolerance("float32", "feedforward")
    at = abs(x[worst].item())
    ratios = [
        difference[worst].item() / (allowed.atol + allowed.rtol * abs(F.gelu(torch.tensor(s * at)).item()))
        for s in (1, -1)
    ]
    prose = " ".join((notebooks.PARTS / "03_feedforward_layernorm.md").read_text().split())
    assert round(difference[worst].item(), 4) == 5e-4 and round(at, 1) == 2.7
    assert [round(r) for r in ratios] == [1, 9] and round(ratios[0], 1) == 1.5
    assert f"differs by up to {difference[worst].item():.2e} (at x = ±{at:.2f})" in prose
    assert "about 1.5 times it" in prose and "about 9 times" in prose
    train = (notebooks.PARTS / "09_train.md").read_text()
    assert f"ln 13 ≈ {math.log(13):.2f}" in train and f"ln 11 ≈ {math.log(11):.2f}" in train
