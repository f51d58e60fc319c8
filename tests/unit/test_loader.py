"""Reading submissions: notebooks, files and folders become source units, nothing is executed."""

import json

import pytest

from autograder.engine.child import runtime
from autograder.engine.contract import loader, spec
from autograder.engine.contract.errors import SubmissionError


def notebook(path, *cells):
    path.write_text(json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def code(source, **nbgrader):
    return {
        "cell_type": "code",
        "metadata": {"nbgrader": nbgrader} if nbgrader else {},
        "source": source,
        "outputs": [],
    }


def test_notebook_magics_and_shell_lines_become_pass(tmp_path):
    path = notebook(
        tmp_path / "nb.ipynb",
        code("%matplotlib inline\n!pip install x\nfiles = !ls\nfor i in range(2):\n    %whos\nX = 1"),
    )
    (unit,) = loader.load(path).units
    assert unit.code.splitlines() == [
        "pass  # %matplotlib inline",
        "pass  # !pip install x",
        "pass  # files = !ls",
        "for i in range(2):",
        "    pass  # %whos",
        "X = 1",
    ]
    compile(unit.code, "nb", "exec")


def test_a_timed_line_runs_its_statement(tmp_path):
    """`%time x = f()` defines x in IPython; the next line's print(x) once failed with a NameError."""
    path = notebook(
        tmp_path / "nb.ipynb",
        code("%time x = f(1)\nfor i in range(2):\n    %timeit -n 3 -r 2 y = f(i)\n%time\nprint(x)"),
    )
    (unit,) = loader.load(path).units
    assert unit.code.splitlines() == ["x = f(1)", "for i in range(2):", "    y = f(i)", "pass  # %time", "print(x)"]


def test_cell_magics_other_than_timing_skip_the_cell(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", code("%%bash\necho hi"), code("%%time\nY = 2"))
    assert [u.code.strip() for u in loader.load(path).units] == ["Y = 2"]


def test_test_cells_are_not_student_code(tmp_path):
    path = notebook(
        tmp_path / "nb.ipynb",
        code("assert False", grade=True, solution=False),
        code("from autograder.checks import close"),
        code("def f():\n    return 1", grade=True, solution=True),
    )
    assert [u.code for u in loader.load(path).units] == ["def f():\n    return 1"]


def test_finished_definition_wins_over_a_stub(tmp_path):
    (tmp_path / "a_stub.py").write_text("def causal_mask(size, device=None):\n    raise NotImplementedError('x')\n")
    (tmp_path / "b_done.ipynb").write_text("")
    notebook(tmp_path / "b_done.ipynb", code("def causal_mask(size, device=None):\n    return size"))
    submission = loader.load(tmp_path)
    assert submission.owners["causal_mask"] == "b_done"
    assert any("defined in more than one file" in note for note in submission.notes)


def test_hidden_and_cache_folders_are_ignored(tmp_path):
    for folder in (".ipynb_checkpoints", "__pycache__"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text("def causal_mask(): pass\n")
    with pytest.raises(SubmissionError, match="holds no notebook"):
        loader.load(tmp_path)
    (tmp_path / "mine.py").write_text("X = 1\n")
    assert [unit.label for unit in loader.load(tmp_path).units] == ["mine.py"]


def test_module_names_are_identifiers(tmp_path):
    notebook(tmp_path / "01 attention-part.ipynb", code("X = 1"))
    assert loader.load(tmp_path).units[0].module == "_01_attention_part"


@pytest.mark.parametrize("name", ["x.txt", "missing.py"])
def test_unreadable_paths_raise_submission_error(tmp_path, name):
    if name.endswith(".txt"):
        (tmp_path / name).write_text("")
    with pytest.raises(SubmissionError):
        loader.load(tmp_path / name)


def test_each_statement_runs_on_its_own(tmp_path):
    (tmp_path / "m.py").write_text("A = 1\nB = undefined_name\nC = 3\nprint('shown only in notebooks')\n")
    modules, problems = runtime.load_modules(loader.load(tmp_path).as_message()["units"])
    assert (vars(modules["m"])["A"], vars(modules["m"])["C"]) == (1, 3)
    assert problems == ["NameError: name 'undefined_name' is not defined (m.py, line 2: B = undefined_name)"]


def test_files_import_each_other_by_name(tmp_path):
    (tmp_path / "first.py").write_text("VALUE = 41\n")
    (tmp_path / "second.py").write_text("from first import VALUE\nANSWER = VALUE + 1\n")
    modules, problems = runtime.load_modules(loader.load(tmp_path).as_message()["units"])
    assert problems == [] and vars(modules["second"])["ANSWER"] == 42


@pytest.mark.parametrize(
    "content",
    ['{"cells": 3}', '{"cells": [1, "x", {"cell_type": "code", "metadata": 5, "source": ["X = ", 1]}]}'],
    ids=["cells-not-a-list", "odd-cells"],
)
def test_malformed_notebooks_are_read_as_far_as_they_go(tmp_path, content):
    (tmp_path / "odd.ipynb").write_text(content)
    submission = loader.load(tmp_path / "odd.ipynb")
    assert [u.code for u in submission.units] in ([], ["X = 1"])
    assert submission.units or "is not a readable notebook" in submission.notes[0]


def test_course_demo_cells_are_not_student_code(tmp_path):
    demo = {"cell_type": "code", "metadata": {"tags": [loader.DEMO_TAG]}, "source": "out = f(x)", "outputs": []}
    path = notebook(tmp_path / "nb.ipynb", demo, code("X = 1"))
    assert [u.code for u in loader.load(path).units] == ["X = 1"]


def test_breakout_quizzes_in_a_students_folder_are_not_code(tmp_path):
    """A blank quiz's answer cells raise NotImplementedError at top level: loaded as code, every one would be a note."""
    import shutil

    from autograder.breakout import quiz_notebooks
    from autograder.course import notebooks

    shutil.copytree(notebooks.SOURCE, tmp_path / notebooks.ASSIGNMENT)
    shutil.copytree(quiz_notebooks.RELEASE, tmp_path / quiz_notebooks.ASSIGNMENT)
    submission = loader.load(tmp_path)
    assert submission.notes == []
    assert submission.owners and not any("rnn_sequential" in u.code for u in submission.units)
    assert loader.load(tmp_path / quiz_notebooks.ASSIGNMENT).units == []


def loaded(path):
    """Load a submission in this process: ({module: module}, problems, notes)."""
    submission = loader.load(path)
    modules, problems = runtime.load_modules(submission.as_message()["units"], shared_names=spec.ALL_NAMES)
    return modules, problems, submission.notes


def test_a_future_import_holds_for_the_whole_file_and_later_cells(tmp_path):
    (tmp_path / "typed.py").write_text(
        "from __future__ import annotations\n\nclass A:\n    def make(self) -> A:\n        return A()\n\n"
        "def build(c: Config) -> A:\n    return A()\n\nclass Config:\n    pass\n"
    )
    notebook(
        tmp_path / "nb.ipynb",
        code("from __future__ import annotations"),
        code("def f(x: Later) -> Later:\n    return x"),
    )
    modules, problems, _ = loaded(tmp_path)
    assert problems == []
    assert modules["nb"].f(1) == 1 and isinstance(modules["typed"].build(None), modules["typed"].A)


def test_a_late_future_import_is_a_syntax_error_of_its_file(tmp_path):
    (tmp_path / "late.py").write_text("X = 1\nfrom __future__ import annotations\n")
    _, problems, _ = loaded(tmp_path)
    assert problems == [
        "late.py: syntax error on line 2: from __future__ imports must occur at the beginning of the file"
    ]


def test_a_main_block_does_not_run_and_top_level_expressions_do(tmp_path):
    (tmp_path / "m.py").write_text(
        "calls = []\ncalls.append('top')\nif __name__ == '__main__':\n    calls.append('main')\n"
    )
    modules, problems, _ = loaded(tmp_path)
    assert problems == [] and modules["m"].calls == ["top"]


def test_self_check_lines_leave_the_definitions_and_their_line_numbers(tmp_path):
    cell = (
        "def causal_mask(size, device=None):\n    return size\n\n"
        "from autograder.notebook import check_masking\nresult = check_masking(causal_mask, None)\nprint(result)\n"
        "import torch\n"
    )
    (unit,) = loader.load(notebook(tmp_path / "nb.ipynb", code(cell))).units
    assert unit.code.splitlines() == [
        "def causal_mask(size, device=None):",
        "    return size",
        "",
        "pass",
        "pass",
        "pass",
        "import torch",
    ]


def test_a_self_check_on_the_line_of_other_code_is_cut_from_it(tmp_path):
    (unit,) = loader.load(
        notebook(tmp_path / "nb.ipynb", code("import autograder.notebook as p; X = 1; p.check_masking(X, X)"))
    ).units
    assert unit.code == "pass\nX = 1\npass"


def test_a_check_imported_in_an_earlier_cell_is_the_kits_in_a_later_one_until_the_student_binds_it(tmp_path):
    """The course notebooks import their helpers in their first cell; a student who calls one at the end of an
    exercise cell got a NameError note while loading (the import is the kit's, and was dropped). A name the
    student then binds again, by a definition or an assignment, is the student's."""
    path = notebook(
        tmp_path / "nb.ipynb",
        code("import torch\nfrom autograder.notebook import check_generate, digits"),
        code("def generate(model):\n    return model\n\ncheck_generate(generate)\nshown = digits([1])\nprint(shown)"),
        code("def digits(ids):\n    return ids\n\nprint(digits([2]))\ncheck_generate = print\ncheck_generate(1)"),
    )
    first, second, third = (unit.code.splitlines() for unit in loader.load(path).units)
    assert first == ["import torch", "pass"]
    assert second == ["def generate(model):", "    return model", "", "pass", "pass", "pass"]
    assert third == [
        "def digits(ids):",
        "    return ids",
        "",
        "print(digits([2]))",
        "check_generate = print",
        "check_generate(1)",
    ]


def test_a_cell_of_kit_calls_only_is_no_unit(tmp_path):
    path = notebook(
        tmp_path / "nb.ipynb",
        code("from autograder.notebook import use_notebooks\nuse_notebooks(globals(), 'a.ipynb')"),
    )
    assert loader.load(path).units == []


def test_run_magic_brings_the_other_notebooks_names(tmp_path):
    notebook(tmp_path / "helpers.ipynb", code("def gelu(x):\n    return 2 * x"))
    notebook(tmp_path / "main.ipynb", code("%run helpers.ipynb\n%run ../elsewhere.py\nY = gelu(3)"))
    modules, problems, _ = loaded(tmp_path)
    assert problems == [] and modules["main"].Y == 6


def test_a_quick_test_of_an_earlier_notebooks_class_runs(tmp_path):
    notebook(tmp_path / "a.ipynb", code("def causal_mask(size, device=None):\n    return size"))
    notebook(tmp_path / "b.ipynb", code("quick = causal_mask(4)"))
    modules, problems, _ = loaded(tmp_path)
    assert problems == [] and modules["b"].quick == 4


def test_files_named_like_libraries_are_left_out_with_a_note(tmp_path):
    (tmp_path / "numpy.py").write_text("raise SystemExit\n")
    (tmp_path / "mine.py").write_text("X = 1\n")
    notebook(tmp_path / "torch.ipynb", code("Y = 2"))
    submission = loader.load(tmp_path)
    assert sorted(u.module for u in submission.units) == ["mine", "torch_ipynb"]
    assert submission.notes == [
        "numpy.py was not graded: a file of that name hides the module numpy that your code "
        "and the grader import (the grader uses the real numpy); rename it to grade what it defines"
    ]


def test_the_bundles_own_package_uploaded_with_the_work_is_not_graded(tmp_path):
    # Uploading the whole bundle folder is what many students do: its autograder/ imports the grader's
    # internals, and graded as theirs it would flag every component.
    work = tmp_path / "my work" / "transformer"
    work.mkdir(parents=True)
    notebook(work / "attention.ipynb", code("def causal_mask(size, device=None):\n    return size"))
    (tmp_path / "my work" / "autograder").mkdir()
    (tmp_path / "my work" / "autograder" / "__main__.py").write_text("from autograder.grade import grade\n")
    submission = loader.load(tmp_path)
    assert [u.label.split(",")[0] for u in submission.units] == ["attention.ipynb"]
    assert submission.notes == [
        "my work/autograder/ was not graded: it is the kit's own package (the student bundle's copy), not your work"
    ]


def test_what_reaches_for_the_kit_is_noted_and_what_calls_its_helpers_is_not(tmp_path):
    """Issue 49: a notebook that patched the grader showed in the class report as nothing to read. Importing the
    reference, or changing what an import of the kit bound, is noted with its cell and line; calling a helper (a
    self-check line, an old style's public check) is what notebooks do."""
    from autograder.engine.contract.noticed import KIT_REACH, kit_reaches

    cells = [
        "from autograder.notebook import check_masking\ncheck_masking(causal_mask)",
        "from autograder.checks import close\nclose(None, None, '', '', None)",
        "import autograder.course.jupyter as kit\nx = 1\nkit.grade_here = lambda c, n: 15",
        "from autograder.notebook import check_attention as check\nsetattr(check, 'ok', True)",
        "import solutions.attention as answers",
    ]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": c} for c in cells], "metadata": {}}
    (tmp_path / "work.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "helper.py").write_text("from solutions import masking\n")
    cell = {n: loader.cell_label("work.ipynb", n, cells[n - 1]) for n in (3, 4, 5)}
    assert kit_reaches(tmp_path) == [
        f"helper.py: line 1 imports solutions.masking, {KIT_REACH}",
        f"{cell[3]}: line 3 changes autograder.course.jupyter, {KIT_REACH}",
        f"{cell[4]}: line 2 changes autograder.notebook.check_attention, {KIT_REACH}",
        f"{cell[5]}: line 1 imports solutions.attention, {KIT_REACH}",
    ]
