"""The package's layout (autograder/__init__.py): three subpackages, each importing only those below it,
and on top the command line, nbgrader's step, what is delivered and the names the notebooks import.

The rule is written once, here: LAYERS, and upward_imports(), which every test of this file uses.
"""
import ast
import importlib
import json
import re

import pytest

from autograder.engine import spec

LAYERS = ("engine", "course", "breakout")  # bottom first; the package's own modules sit above all three
TOP = len(LAYERS)
PACKAGE = spec.KIT_ROOT / "autograder"


def module_name(path, package):
    """autograder/engine/jail.py -> autograder.engine.jail; a package's __init__.py -> the package."""
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


def test_layout_no_module_imports_from_a_layer_above_its_own():
    assert upward_imports() == []


def test_layout_rule_catches_upward_imports_at_any_depth_and_relative(tmp_path):
    package = tmp_path / PACKAGE.name
    files = {
        "__init__.py": "from autograder.engine import spec\n",
        "bundle.py": "from autograder.breakout import bank\nfrom autograder import engine\n",
        "engine/__init__.py": "",
        "engine/spec.py": "import json\n",
        "engine/loader.py": "def load():\n    from autograder.course import public\n    return public\n",
        "engine/grade.py": "from .. import bundle\nfrom . import spec\n",
        "course/__init__.py": "from autograder.engine import spec\n",
        "course/public.py": "import autograder.breakout.bank\nfrom .notebooks import cell\n",
        "breakout/__init__.py": "from autograder.breakout.bank import grade_here\nfrom autograder.course import public\n",
    }
    for relative, text in files.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    assert upward_imports(package) == [
        "autograder/__init__.py:1 imports autograder.engine.spec",
        "autograder/course/public.py:1 imports autograder.breakout.bank",
        "autograder/engine/grade.py:1 imports autograder.bundle",
        "autograder/engine/loader.py:2 imports autograder.course.public",
    ]


def test_layout_every_subpackage_is_a_layer_and_says_what_it_owns_and_may_import():
    subpackages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(LAYERS)
    for name in LAYERS:
        text = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert text and re.search(r"\bimport", text, re.IGNORECASE), f"{name}/__init__.py: say what it owns and what it may import"


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
    """The notebooks import from the fixed names on top (autograder.public, .notebook, .pictures, .breakout),
    never from a module whose place inside the kit may change."""
    assert {module for module, _ in _kit_imports_of_notebooks()} == {
        "autograder.public", "autograder.notebook", "autograder.pictures", "autograder.breakout"}
