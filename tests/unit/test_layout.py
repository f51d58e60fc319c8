"""The package's layout (autograder/__init__.py): three subpackages, each importing only those below it,
and on top the command line, nbgrader's step, what is delivered and the names the notebooks import. Inside
the engine, folders by trust (autograder/engine/__init__.py): what enters the jail imports nothing of the
judge's.

The rules are written once, here: LAYERS with upward_imports(), and TRUST with untrusted_imports().
"""

import ast
import importlib
import json
import re

import pytest

from autograder.engine.contract import spec
from autograder.engine.judge import jail

LAYERS = ("engine", "course", "breakout")  # bottom first; the package's own modules sit above all three
TOP = len(LAYERS)
ON_TOP = ("commands", "nbgrader")  # subpackages of the package's own modules, above the three layers
PACKAGE = spec.KIT_ROOT / "autograder"


def module_name(path, package):
    """autograder/engine/judge/jail.py -> autograder.engine.judge.jail; a package's __init__.py -> the package."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(name):
    """The layer of a module of the kit (autograder.course.public -> 1), TOP for the package's own modules,
    None for a module outside the kit."""
    parts = name.split(".")
    if parts[0] != PACKAGE.name:
        return None
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else TOP


def imports(path, name):
    """(line, module) for every import in the file, at any depth (a function's own imports included), with
    `from package import x` read as package.x: x may be a module."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")[: len(name.split(".")) - node.level + is_package]
                base = ".".join(anchor + ([base] if base else []))
            yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)


def upward_imports(package=PACKAGE):
    """Every import of the package's code that reaches above its own layer, as 'file:line imports module'.

    The package's own __init__.py runs before any module of it, so it sits below everything and may import
    nothing of the kit; a subpackage's __init__.py is in its subpackage's layer.
    """
    found = []
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package)
        own = -1 if name == package.name else layer(name)
        for line, target in imports(path, name):
            if (reached := layer(target)) is not None and reached > own:
                found.append(f"{path.relative_to(package.parent)}:{line} imports {target}")
    return found


# The engine's folders, each with the folders its code may import. contract/ and child/ run in the jail, beside
# the student: nothing of the judge's (a tolerance, a fixture, a score) may be importable from there.
TRUST = {
    "contract": {"contract"},
    "child": {"contract", "child"},
    "judge": {"contract", "child", "judge"},
    "authoring": {"contract", "child", "judge", "authoring"},
}
JAILED = ("contract", "child")
# What deciding a grade reads or calls: a closeness test, a tolerance, a point. None of it belongs in the child,
# whose answers are data the judge checks.
GRADING_NAMES = frozenset(
    {
        "allclose",
        "isclose",
        "assert_close",
        "assert_allclose",
        "testing",
        "TOLERANCES",
        "OVERRIDES",
        "tolerance",
        "points",
        "TOTAL_POINTS",
        "expected",
    }
)


def untrusted_imports(package=PACKAGE):
    """Every import of an engine folder's code that reaches a folder of the engine it may not import (TRUST),
    as 'file:line imports module'; a module that sits in no folder of TRUST is reported as such."""
    found = []
    for path in sorted((package / "engine").rglob("*.py")):
        name = module_name(path, package)
        if name == f"{package.name}.engine":
            continue
        own = name.split(".")[2]
        if own not in TRUST:
            found.append(f"{path.relative_to(package.parent)} is in no folder of the engine's")
            continue
        for line, target in imports(path, name):
            parts = target.split(".")
            if parts[:2] == [package.name, "engine"] and len(parts) > 2 and parts[2] not in TRUST[own]:
                found.append(f"{path.relative_to(package.parent)}:{line} imports {target}")
    return found


def written(tmp_path, files):
    """A package of the kit's name in tmp_path holding these {relative path: text} files; returns its folder."""
    package = tmp_path / PACKAGE.name
    for relative, text in files.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    return package


def test_layout_no_module_imports_from_a_layer_above_its_own():
    assert upward_imports() == []


def test_layout_rule_catches_upward_imports_at_any_depth_and_relative(tmp_path):
    package = written(
        tmp_path,
        {
            "__init__.py": "from autograder.engine import spec\n",
            "bundle.py": "from autograder.breakout import bank\nfrom autograder import engine\n",
            "engine/__init__.py": "",
            "engine/spec.py": "import json\n",
            "engine/loader.py": "def load():\n    from autograder.course import public\n    return public\n",
            "engine/grade.py": "from .. import bundle\nfrom . import spec\n",
            "course/__init__.py": "from autograder.engine import spec\n",
            "course/public.py": "import autograder.breakout.bank\nfrom .notebooks import cell\n",
            "breakout/__init__.py": "from autograder.breakout.bank import grade_here\nfrom autograder.course import public\n",
        },
    )
    assert upward_imports(package) == [
        "autograder/__init__.py:1 imports autograder.engine.spec",
        "autograder/course/public.py:1 imports autograder.breakout.bank",
        "autograder/engine/grade.py:1 imports autograder.bundle",
        "autograder/engine/loader.py:2 imports autograder.course.public",
    ]


def test_layout_engine_folders_import_only_what_their_trust_allows():
    assert untrusted_imports() == []


def test_layout_trust_rule_catches_the_child_reaching_the_judge(tmp_path):
    package = written(
        tmp_path,
        {
            "__init__.py": "",
            "engine/__init__.py": "",
            "engine/loose.py": "",
            "engine/contract/spec.py": "from autograder.engine.child import runtime\n",
            "engine/child/server.py": "def run():\n    from autograder.engine.judge.tolerances import TOLERANCES\n",
            "engine/child/runtime.py": "from ..judge import checks\nfrom . import binding\nfrom autograder.engine.contract import spec\n",
            "engine/judge/grade.py": "from autograder.engine import authoring\nfrom autograder.engine.child import runtime\n",
            "engine/authoring/case_files.py": "from autograder.engine.judge import grade\n",
        },
    )
    assert untrusted_imports(package) == [
        "autograder/engine/child/runtime.py:1 imports autograder.engine.judge.checks",
        "autograder/engine/child/server.py:2 imports autograder.engine.judge.tolerances.TOLERANCES",
        "autograder/engine/contract/spec.py:1 imports autograder.engine.child.runtime",
        "autograder/engine/judge/grade.py:1 imports autograder.engine.authoring",
        "autograder/engine/loose.py is in no folder of the engine's",
    ]


def test_layout_the_jail_mounts_the_jailed_folders_alone():
    engine = PACKAGE / "engine"
    assert {p.parent.name for p in engine.glob("*/__init__.py")} == set(TRUST)
    assert ("__init__.py", "engine/__init__.py", *(f"engine/{folder}" for folder in JAILED)) == jail.INSIDE


def test_layout_code_in_the_child_holds_no_grading_decision():
    """The child computes and answers; closeness, tolerances and points are read in the judge alone."""
    found = []
    for path in sorted((PACKAGE / "engine" / "child").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in GRADING_NAMES:
                found.append(f"{path.name}:{node.lineno} {name}")
    assert found == []


def test_layout_every_subpackage_is_a_layer_and_says_what_it_owns_and_may_import():
    subpackages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert subpackages == {*LAYERS, *ON_TOP}
    for name in (*LAYERS, *ON_TOP):
        text = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert text and re.search(r"\bimport", text, re.IGNORECASE), (
            f"{name}/__init__.py: say what it owns and what it may import"
        )


# The folders of one file per component, named by its id (course/training.py, part 9's task, is no such file).
PER_COMPONENT = ("cases", "mistakes", "steps")


def shared_names(package=PACKAGE):
    """Every module name (a file's stem, a package's folder) that two places of the package hold, as
    'name: path, path': one name, one job. A folder's one file per component aside (cases/attention.py beside
    mistakes/attention.py): there the folder says the job and the name the component."""
    components = {component.id for component in spec.ALL_COMPONENTS}
    places = {}
    for path in sorted(package.rglob("*.py")):
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if name not in components or path.parent.name not in PER_COMPONENT:
            places.setdefault(name, []).append(str(path.relative_to(package.parent)))
    return [f"{name}: {', '.join(paths)}" for name, paths in sorted(places.items()) if len(paths) > 1]


def test_layout_no_two_modules_share_a_name():
    assert shared_names() == []


def test_layout_name_rule_catches_a_module_named_as_a_package_and_two_files_alike(tmp_path):
    package = written(
        tmp_path,
        {
            "__init__.py": "",
            "engine/child/__init__.py": "",
            "engine/child/training.py": "",
            "engine/judge/child.py": "",
            "engine/authoring/cases/attention.py": "",
            "engine/authoring/mistakes/attention.py": "",
            "course/training.py": "",
        },
    )
    assert shared_names(package) == [
        "child: autograder/engine/child/__init__.py, autograder/engine/judge/child.py",
        "training: autograder/course/training.py, autograder/engine/child/training.py",
    ]


# The package holds code; what a command generates, and the course's own material, live beside it (generated/,
# course/). The one file of the package that is no Python: the hidden suites' pytest settings, which make pytest
# read none of the kit's or a course's own when it grades (judge/run.py).
NOT_PYTHON = ("engine/judge/suites/pytest.ini",)


def data_in_the_package(package=PACKAGE):
    """Every file of the package that is not a Python module, but NOT_PYTHON and the bytecode Python caches."""
    return [
        str(path.relative_to(package.parent))
        for path in sorted(package.rglob("*"))
        if path.is_file()
        and path.suffix != ".py"
        and "__pycache__" not in path.parts
        and str(path.relative_to(package)) not in NOT_PYTHON
    ]


def test_layout_the_package_holds_code_alone():
    assert data_in_the_package() == [], "data belongs in generated/ (generated/README.md) or the course's folders"


def test_layout_code_rule_names_each_data_file(tmp_path):
    package = written(
        tmp_path,
        {
            "__init__.py": "",
            "stamps.json": "{}",
            "engine/judge/suites/pytest.ini": "[pytest]\n",
            "course/corpus/README.md": "",
            "engine/judge/__pycache__/x.pyc": "",
        },
    )
    assert data_in_the_package(package) == ["autograder/course/corpus/README.md", "autograder/stamps.json"]


def _kit_imports_of_notebooks():
    """Each `from autograder... import names` in the committed notebooks (coding and quiz, source and
    release) and in the parts they are built from: what a notebook a student holds imports."""
    texts = [p.read_text() for p in (spec.KIT_ROOT / "course" / "parts").glob("*.md")]
    for path in (spec.KIT_ROOT / "course").glob("*/*/*.ipynb"):
        texts += ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    statements = set()
    for text in texts:
        statements |= set(re.findall(r"^\s*from (autograder[\w.]*) import ([\w, ]+)$", text, re.MULTILINE))
    return sorted(statements)


@pytest.mark.parametrize("module, names", _kit_imports_of_notebooks())
def test_layout_names_the_notebooks_import_exist(module, names):
    imported = importlib.import_module(module)
    assert [n.strip() for n in names.split(",") if not hasattr(imported, n.strip())] == []


def test_layout_notebooks_import_the_fixed_names_only():
    """The notebooks import from the one facade (autograder.notebook), never from a module whose place inside the
    kit may change."""
    assert {module for module, _ in _kit_imports_of_notebooks()} == {"autograder.notebook"}


def test_layout_the_facade_names_what_its_modules_hold():
    from autograder import notebook

    assert [name for name, home in notebook.HOME.items() if not hasattr(importlib.import_module(home), name)] == []
    with pytest.raises(AttributeError, match="check_nothing"):
        notebook.check_nothing  # noqa: B018


# The project's own limits (docs/CHANGING.md): a module a reader takes in at a sitting, a function in one screen.
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def too_long(package=PACKAGE):
    """Every module of the package over MAX_MODULE_LINES lines, as 'file: N lines', and every function or method
    over MAX_FUNCTION_LINES (from its def to its last line), as 'file:line name: N lines'."""
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        where = path.relative_to(package.parent)
        if (count := len(text.splitlines())) > MAX_MODULE_LINES:
            found.append(f"{where}: {count} lines")
        for node in ast.walk(ast.parse(text, str(path))):
            length = node.end_lineno - node.lineno + 1 if isinstance(node, FUNCTIONS) else 0
            if length > MAX_FUNCTION_LINES:
                found.append(f"{where}:{node.lineno} {node.name}: {length} lines")
    return found


def test_layout_no_module_over_400_lines_and_no_function_over_60():
    found = too_long()
    assert found == [], "over the limits; split each by its jobs:\n" + "\n".join(found)


def test_layout_length_rule_names_each_long_module_and_function(tmp_path):
    package = written(
        tmp_path,
        {
            "bundle.py": "x = 1\n" * 400,
            "generated.py": "x = 1\n" * 401,
            "engine/judge/grade.py": "def grade():\n" + "    x = 1\n" * 60 + "\n\ndef short():\n" + "    x = 1\n" * 59,
            "course/public.py": "class Check:\n    async def run(self):\n" + "        x = 1\n" * 60,
        },
    )
    assert too_long(package) == [
        "autograder/course/public.py:2 run: 61 lines",
        "autograder/engine/judge/grade.py:1 grade: 61 lines",
        "autograder/generated.py: 401 lines",
    ]
