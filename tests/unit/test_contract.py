"""docs/CONTRACT.md, the contract students and instructors read, agrees with the kit's code and with the staff's copy."""

import re

import pytest

from autograder.engine.contract import spec

CONTRACT = spec.KIT_ROOT / "docs" / "CONTRACT.md"
STAFF_COPY = spec.KIT_ROOT.parent / "shared" / "SPEC.md"


def contract_body():
    text = CONTRACT.read_text()
    return text[text.index("-->\n") + 4 :]


def table(section):
    """{component id: [name, ...]} from the table under the contract's heading `section`."""
    body = contract_body()
    start = body.index(f"\n## {section}")
    end = body.find("\n## ", start + 1)
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \|", body[start:end], re.M)
    return {component: re.findall(r"`(\w+)\(", names) for component, names in rows}


def test_the_contracts_components_and_names_are_the_kits():
    assert table("Components") == {c.id: list(c.names) for c in spec.COMPONENTS}


def test_the_contracts_extensions_and_names_are_the_kits():
    assert table("Course extensions") == {c.id: list(c.names) for c in spec.EXTENSIONS}
    assert all(c.extension for c in spec.EXTENSIONS) and not any(c.extension for c in spec.COMPONENTS)


@pytest.mark.skipif(not STAFF_COPY.exists(), reason="no staff copy of the contract beside this clone")
def test_the_contract_is_the_staffs_word_for_word():
    assert contract_body() == STAFF_COPY.read_text(), (
        "the contract changed: copy ../shared/SPEC.md into docs/CONTRACT.md"
    )
