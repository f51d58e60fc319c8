"""Student stubs from the reference: every solution region becomes `raise NotImplementedError(hint)`.

A region is marked as nbgrader marks it, `### BEGIN SOLUTION` ... `### END SOLUTION`, and the line just
above it is a `# Hint: ...` comment, whose text becomes the exception's message. Everything else,
constructors included, is copied as it is, so attribute names are fixed for the student.
"""

import re

from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
HINT = re.compile(r"^(\s*)# Hint: (.+)$")


def stub_source(source, name="<source>"):
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    inside = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise KitFault(f"{name}:{number}: {BEGIN} inside another solution region")
            hint = HINT.match(out.pop() if out else "")
            if not hint:
                raise KitFault(f"{name}:{number}: a solution region needs a '# Hint: ...' line just above it")
            indent, text = hint.groups()
            out.append(f"{indent}raise NotImplementedError({text!r})\n")
            inside = True
        elif stripped == END:
            if not inside:
                raise KitFault(f"{name}:{number}: {END} without {BEGIN}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise KitFault(f"{name}: {BEGIN} is never closed")
    return "".join(out)


def expected_stubs():
    """{stub path: content} for every component."""
    return {c.stub: stub_source(c.reference.read_text(), c.reference.name) for c in spec.ALL_COMPONENTS}


def write():
    spec.ASSIGNMENTS.mkdir(exist_ok=True)
    for path, content in expected_stubs().items():
        path.write_text(content)


def drift():
    """Stub files that differ from what write() would produce."""
    return [p.name for p, content in expected_stubs().items() if not p.exists() or p.read_text() != content]
