"""Reading submissions: notebooks, files and folders become source units, nothing is executed."""
import json

import pytest

from autograder import loader, runtime


def notebook(path, *cells):
    path.write_text(json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def code(source, **nbgrader):
    return {"cell_type": "code", "metadata": {"nbgrader": nbgrader} if nbgrader else {}, "source": source, "outputs": []}


def test_notebook_magics_and_shell_lines_become_pass(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", code("%matplotlib inline\n!pip install x\nfiles = !ls\nfor i in range(2):\n    %time f(i)\nX = 1"))
    (unit,) = loader.load(path).units
    assert unit.code.splitlines() == ["pass  # %matplotlib inline", "pass  # !pip install x", "pass  # files = !ls", "for i in range(2):", "    pass  # %time f(i)", "X = 1"]
    compile(unit.code, "nb", "exec")


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
    assert loader.load(tmp_path).units == []


def test_module_names_are_identifiers(tmp_path):
    notebook(tmp_path / "01 attention-part.ipynb", code("X = 1"))
    assert loader.load(tmp_path).units[0].module == "_01_attention_part"


@pytest.mark.parametrize("name", ["x.txt", "missing.py"])
def test_unreadable_paths_raise_submission_error(tmp_path, name):
    if name.endswith(".txt"):
        (tmp_path / name).write_text("")
    with pytest.raises(loader.SubmissionError):
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

    from autograder import breakout_notebooks, course

    shutil.copytree(course.SOURCE, tmp_path / course.ASSIGNMENT)
    shutil.copytree(breakout_notebooks.RELEASE, tmp_path / breakout_notebooks.ASSIGNMENT)
    submission = loader.load(tmp_path)
    assert submission.notes == []
    assert submission.owners and not any("rnn_sequential" in u.code for u in submission.units)
    assert loader.load(tmp_path / breakout_notebooks.ASSIGNMENT).units == []
