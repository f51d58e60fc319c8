"""What the values of a built part are computed from, hashed for its stamp (autograder/generated.py).

A component's fixtures (its hidden cases and its mistakes' evidence on them) and its public cases are made from:
the references of the components its cases module (cases/<id>.py) names, its own among them, and of those these
use (spec.dependencies: a case of multihead maps Hugging Face's weights by the reference encoder's); the cases
module; its
catalog entries' ids and edits, as data (mistakes/<id>.py: the sentences, which no value depends on, left out);
the tolerances its outputs are held to, as data (tolerances.py: another component's own changes none of its
values); the kit code that computes values (COMPUTES); the SPEC names, by which the reference is loaded; and the pins of
the libraries whose numbers they are (PINNED). Of a reference, what the SPEC names run: a helper that only the
notebooks call (a step) is left out. The notebooks' steps' public cases, likewise, from every reference whole (a
step is a helper of one) and each step's name and cases (steps/: its words, which no value depends on, left out).

Code is hashed as its syntax tree, without comments, docstrings, or where a kit module imports a name from, and
nothing is hashed by its path: a comment or a hint reworded, or a module moved, changes no value and stales no
stamp. That every edit of the catalog still applies to the reference once, whatever its comments say, is tested
(tests/test_generated.py), as is COMPUTES: a build is traced, and kit code that runs in it must be in COMPUTES,
be one component's own cases or catalog, or say in COMPUTES_NOTHING why it computes no value.
"""

import ast
import functools
import hashlib
import importlib.util
import re
from pathlib import Path

from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.judge.fixtures import FLOATS
from autograder.engine.judge.tolerances import tolerance

COMPUTES = (
    "autograder.engine.authoring.builder",
    "autograder.engine.authoring.case_files",
    "autograder.engine.authoring.evidence",
    "autograder.engine.authoring.mistakes.mistake",
    "autograder.engine.authoring.mutants",
    "autograder.engine.child.runtime",
    "autograder.engine.child.train_mode",
    "autograder.engine.contract.kit_statements",
    "autograder.engine.contract.loader",
    "autograder.engine.contract.messages",
    "autograder.engine.judge.checks",
    "autograder.engine.judge.diagnosis",
    "autograder.engine.judge.fixtures",
    "autograder.engine.judge.hf",
    "autograder.engine.judge.suites.checking",
    "autograder.engine.judge.suites.running",
)
# Kit code that runs while a part builds and computes none of its values. A package whose __init__.py holds no
# code but its docstring need not be listed.
COMPUTES_NOTHING = {
    "autograder.engine.authoring.inputs": "this module: it hashes the inputs, before any is built",
    "autograder.engine.authoring.mistakes": "the catalog, hashed as data: each entry's id and edits (catalog())",
    "autograder.engine.contract.spec": "the components' ids and SPEC names, hashed as data (names())",
    "autograder.engine.contract.errors": "exception classes: what raises and catches them is code of COMPUTES",
    "autograder.engine.contract.protocol": "the wire's framing and its labels; the build sends nothing",
    "autograder.engine.contract.reasons": "sentences a student reads (why a component scores 0)",
    "autograder.engine.judge.hints": "sentences a student reads: a failed check's hint, which the build never keeps",
    "autograder.engine.judge.hints.failures": "sentences a student reads, as above",
    "autograder.engine.judge.seams": "the types the suites meet what they grade by (Protocols), no code that runs",
    "autograder.engine.judge.tolerances": "the component's tolerance in each dtype, hashed as data (tolerances())",
}
# Kit code that computes the values of a few units alone, hashed for them alone: the training component's calls graded
# by their effect, the generation component's calls with state (a seeded generator, a cache), and a mistake's run on
# either (effect_runs), which no other component's cases make.
COMPUTES_OF = {
    "training": ("autograder.engine.authoring.effect_runs", "autograder.engine.child.effects"),
    "generation": ("autograder.engine.authoring.effect_runs", "autograder.engine.child.stateful"),
}
PINNED = ("numpy", "torch", "transformers")
CASES = "autograder.engine.authoring.cases"
STEPS = "steps"  # the unit of the steps' public cases, beside the components' ids
STEPS_PACKAGE = "autograder.engine.authoring.steps"


def digest(unit):
    """The hash of what a unit's values are computed from: a component's id (its fixtures and its public cases),
    or STEPS."""
    chunks = {
        "pins": pins(),
        "names": names(),
        "code": "\n".join(sorted(code(module_path(name)) for name in COMPUTES)),
        "cases": "\n".join(_code(path.read_text(), steps=True) for path in cases_files(unit).values()),
        "references": "\n".join(f"{c} {reference(c, whole=unit == STEPS)}" for c in references(unit)),
        "catalog": "" if unit == STEPS else catalog(unit),
        "tolerances": "" if unit == STEPS else tolerances(unit),
    }
    if unit in COMPUTES_OF:  # only there: every other unit's digest is what it was before these were written
        chunks["own code"] = "\n".join(sorted(code(module_path(name)) for name in COMPUTES_OF[unit]))
    hashed = hashlib.sha256()
    for label, text in chunks.items():
        hashed.update(f"{label}\0{text}\0".encode())
    return hashed.hexdigest()


def cases_files(unit):
    """{module: file} of the kit modules that hold a unit's cases: a component's cases module, or the steps'
    package and its modules (found by their folder: a module's own spec would import the package, and torch)."""
    if unit != STEPS:
        return {f"{CASES}.{unit}": module_path(f"{CASES}.{unit}")}
    package = module_path(STEPS_PACKAGE)
    modules = sorted(path for path in package.parent.glob("*.py") if path != package)
    return {STEPS_PACKAGE: package, **{f"{STEPS_PACKAGE}.{path.stem}": path for path in modules}}


def reference(component_id, whole=False):
    """The code of a component's reference that its SPEC names run (whole: all of it): the file less the
    top-level functions and classes that none of them reaches, such as a step's helper, which only the notebooks
    call."""
    component = spec.BY_ID[component_id]
    text = component.reference.read_text()
    if whole:
        return _code(text)
    tree = ast.parse(text)
    defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    reached = set(component.names)
    todo = [node for node in tree.body if (name := getattr(node, "name", None)) not in defined or name in reached]
    while todo:
        used = {n.id for n in ast.walk(todo.pop()) if isinstance(n, ast.Name)} & set(defined)
        todo += [defined[name] for name in used - reached]
        reached |= used
    kept = [node for node in tree.body if getattr(node, "name", None) not in set(defined) - reached]
    return _code(ast.unparse(ast.Module(body=kept, type_ignores=[])))


def references(unit):
    """The ids of the components whose references a unit's values are computed with, sorted: the core's for STEPS
    (each step is a helper of one, steps/ lists the core's); else those whose SPEC names the unit's cases module
    names, and their dependencies."""
    if unit == STEPS:
        return sorted(c.id for c in spec.COMPONENTS)
    tree = ast.parse(module_path(f"{CASES}.{unit}").read_text())
    named = {spec.OWNER[name].id for name in map(_spec_name, ast.walk(tree)) if name}
    return sorted(set().union(*({c, *spec.dependencies(c)} for c in {unit, *named})))


def _spec_name(node):
    """The SPEC name a node is a string of, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in spec.OWNER:
        return node.value
    return None


def pins():
    """The lines of requirements.txt that pin PINNED."""
    lines = (spec.KIT_ROOT / "requirements.txt").read_text().splitlines()
    return "\n".join(sorted(line for line in lines if re.split(r"[=<>~\[ ]", line, maxsplit=1)[0] in PINNED))


def names():
    return repr([(component.id, component.names) for component in spec.COMPONENTS])


def catalog(component):
    """The component's entries as data: each member of each family, by id, with its edits."""
    return repr([mistake.members() for mistake in mistakes.of(component)])


def tolerances(component):
    """The tolerances the component's outputs are held to, by dtype, as data: the evidence of its mistakes is
    sorted with them (a mistake right within them, two alike, one that computes in float32)."""
    return repr({dtype: tolerance(dtype, component) for dtype in FLOATS})


def module_path(name):
    """The file of a kit module, found without importing it (the builders import torch)."""
    found = importlib.util.find_spec(name)
    if found is None or found.origin is None:
        raise LookupError(f"no module {name}: moved? update autograder/engine/authoring/inputs.py")
    return Path(found.origin)


def code(path):
    """The syntax tree of a Python file, less its docstrings and where it imports kit names from."""
    return _code(Path(path).read_text())


@functools.lru_cache(maxsize=256)
def _code(text, steps=False):
    """text's syntax tree as code() hashes it; with steps, of each Step(...) only its name and its cases (what a
    step is titled and says, its hint and its wrong version make none of its values)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if steps and isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Step":
            node.args = node.args[:1]
            node.keywords = [keyword for keyword in node.keywords if keyword.arg == "cases"]
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and _docstring(body):
            node.body = node.body[1:]
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograder"):
            node.module = None
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("autograder"):
                    alias.name = alias.name.rsplit(".", 1)[-1]
    return ast.dump(tree)


def _docstring(body):
    first = body[0] if body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
