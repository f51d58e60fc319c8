"""Every sentence a student reads comes from the one table of them (engine/judge/hints/), is said by the kit, and
is held to evidence or to a test (hint_evidence.py says which)."""

import ast
import json
from pathlib import Path

from support.hint_evidence import REASON_TESTS, REASONS, UNPROVOKED, reasons_said

from autograder.course import PUBLIC_CASES
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.contract.reasons import DELEGATION, ZERO
from autograder.engine.judge import fixtures, hints

PACKAGE = spec.KIT_ROOT / "autograder"
TESTS = Path(__file__).parent.parent


def test_every_likely_mistake_sentence_is_one_cataloged_mistakes_and_every_named_mistake_has_one():
    """The table the diagnosis reads is the catalog's sentences, one per entry (each entry writes its own, so no
    sentence is without one), and every mistake the evidence names, hidden or public, has its sentence there."""
    table = {m.id: m.says for m in mistakes.CATALOG}
    assert json.loads(hints.MISTAKE_SENTENCES.read_text()) == table and len(table) == len(mistakes.CATALOG)
    assert all(says.strip() for says in table.values())
    for component in (c for c in spec.ALL_COMPONENTS if spec.has_suite(c)):
        for evidence in (fixtures.evidence_of(component.id), fixtures.case_set(PUBLIC_CASES).evidence(component.id)):
            named = {part for entry in evidence.entries.values() for part in entry["parts"]}
            assert named and named <= {m.id for m in mistakes.of(component.id)}, component.id


def _said_in_the_kit():
    """The keys of ZERO and of DELEGATION's topics that the kit's code reads by a constant key."""
    keys = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                inner = node.value
                if isinstance(inner, ast.Name) and inner.id == "ZERO":
                    keys.add(f"zero.{node.slice.value}")
                elif (
                    isinstance(inner, ast.Subscript)
                    and isinstance(inner.value, ast.Name)
                    and inner.value.id == "DELEGATION"
                    and isinstance(inner.slice, ast.Constant)
                ):
                    keys.add(f"delegation.{inner.slice.value}.{node.slice.value}")
    return keys


def test_every_reason_is_said_by_the_kit():
    """A reason nothing says fails here: the judge's and the child's by their key, and each component's own
    delegation reason through spec (forbidden_reason, sent to its child)."""
    kernels = {f"delegation.{c.id}.kernel" for c in spec.ALL_COMPONENTS if c.kinds}
    assert _said_in_the_kit() | kernels == set(REASONS)
    for component in spec.ALL_COMPONENTS:
        if component.kinds:
            assert component.forbidden_reason == DELEGATION[component.id]["kernel"]


def test_every_reason_is_held_to_a_test_or_says_why_none_provokes_it():
    assert set(REASON_TESTS) | set(UNPROVOKED) == set(REASONS) and not set(REASON_TESTS) & set(UNPROVOKED)
    for name, test in REASON_TESTS.items():
        module, function = test.split("::")
        source = _source(module, function)
        # A parametrized test names a component's own reason with the component as a field.
        component = name.split(".")[1]
        assert f'"{name}"' in source or name.replace(component, "{component}") in source, f"{test} holds no {name}"


def _source(module, function):
    """The test function's text, its decorators (the parameters it runs with) included."""
    lines = (TESTS / f"{module}.py").read_text().splitlines()
    (node,) = [n for n in ast.parse("\n".join(lines)).body if isinstance(n, ast.FunctionDef) and n.name == function]
    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
    return "\n".join(lines[first - 1 : node.end_lineno])


def test_each_reason_is_told_by_its_own_pattern():
    """reasons_said names a reason by its sentence with any values in its fields: one sentence, one name."""
    for name, text in REASONS.items():
        filled = text.format_map(_Anything())
        assert reasons_said(filled) >= {name}, name
    assert reasons_said("scores 0: " + ZERO["held"]) == {"zero.held"}


class _Anything(dict):
    def __missing__(self, key):
        return _Value()


class _Value:
    def __format__(self, spec):
        return "7"
