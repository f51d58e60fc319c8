"""Student stubs from the reference, and the hint ladders written above its solution regions.

A region is marked as nbgrader marks it, `### BEGIN SOLUTION` ... `### END SOLUTION`, and just above it stands
its ladder, two levels or more, numbered from 1: the question to ask yourself, then the operation, then the line.

    # Hint 1: what must the softmax give a blocked position, and which score makes it so?
    # Hint 2: fill the blocked scores (where the mask is False) with -inf.
    ### BEGIN SOLUTION

A stub is the reference with each region and its ladder replaced by `raise NotImplementedError()`: the docstring
states the contract, and the hints reach a student only through the ladder table (ladders(), shipped as
generated/hints.json under the course's setting: course/ladder.py), never in the stub. Everything else,
constructors included, is copied as it is, so attribute names are fixed for the student.
"""

import ast
import json
import re
from dataclasses import dataclass

import yaml

from autograder.course import ladder
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
HINT = re.compile(r"^(\s*)# Hint (\d+): (.+)$")
STUB = "raise NotImplementedError()"
SETTINGS = spec.KIT_ROOT / "course" / "settings.yaml"
# The reference of the ungraded exercises (course/notebooks.py's EXERCISES, which imports this module).
EXERCISES = spec.KIT_ROOT / "course" / "exercises"


def stub_source(source, name="<source>"):
    """The source with every solution region and its ladder replaced by a bare raise."""
    out = []
    for piece in _pieces(source, name):
        if isinstance(piece, Region):
            first = piece.lines[0]
            out.append(f"{first[: len(first) - len(first.lstrip())]}{STUB}\n")
        else:
            out.append(piece)
    return "".join(out)


def without_ladders(source, name="<source>"):
    """The source with its ladders taken out and its solution regions kept: what a source notebook's cell holds."""
    return "".join("".join(p.lines) if isinstance(p, Region) else p for p in _pieces(source, name))


def ladders(source, name="<source>"):
    """{top-level name: its ladder's levels} of the definitions of source that hold a solution region."""
    found_regions = [piece for piece in _pieces(source, name) if isinstance(piece, Region)]
    spans = [(node.lineno, node.end_lineno, node.name) for node in ast.parse(source).body if hasattr(node, "name")]
    found: dict[str, list[str]] = {}
    for region in found_regions:
        owner = next((n for first, last, n in spans if first <= region.number <= last), None)
        if owner is None:
            raise KitFault(f"{name}:{region.number}: a solution region outside any top-level definition")
        if owner in found:
            raise KitFault(f"{name}:{region.number}: {owner} has a second solution region; one ladder per exercise")
        found[owner] = region.hints
    return found


@dataclass
class Region:
    number: int  # the line of its BEGIN
    hints: list[str]  # its ladder, level 1 first
    lines: list[str]  # BEGIN to END, both included


def _pieces(source, name):
    """The source's lines, each region (with the ladder above it) as one Region in their place."""
    pieces: list = []
    ladder: list[tuple[int, str]] = []
    region = None
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        stripped, hint = line.strip(), HINT.match(line.rstrip("\n"))
        if region is not None:
            region.lines.append(line)
            if stripped == BEGIN:
                raise KitFault(f"{name}:{number}: {BEGIN} inside another solution region")
            if stripped == END:
                pieces.append(region)
                region = None
        elif hint:
            ladder.append((int(hint.group(2)), hint.group(3)))
        elif stripped == BEGIN:
            if len(ladder) < 2 or [level for level, _ in ladder] != list(range(1, len(ladder) + 1)):
                raise KitFault(
                    f"{name}:{number}: a solution region needs its ladder just above it, "
                    "'# Hint 1: ...', '# Hint 2: ...' and so on, two levels or more"
                )
            region = Region(number, [text for _, text in ladder], [line])
            ladder = []
        elif ladder:
            raise KitFault(f"{name}:{number}: a ladder ('# Hint N: ...') stands just above a {BEGIN}, not here")
        elif stripped == END:
            raise KitFault(f"{name}:{number}: {END} without {BEGIN}")
        else:
            pieces.append(line)
    if region is not None:
        raise KitFault(f"{name}: {BEGIN} is never closed")
    if ladder:
        raise KitFault(f"{name}: a ladder ('# Hint N: ...') stands just above a {BEGIN}, not here")
    return pieces


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


def hints_setting():
    """The course's hints setting (course/settings.yaml): on-request, after-failure or none."""
    setting = yaml.safe_load(SETTINGS.read_text())["hints"]
    if setting not in ladder.MODES:
        raise KitFault(f"{SETTINGS.name}: hints is {setting!r}; it is one of {', '.join(ladder.MODES)}")
    return setting


def every_ladder():
    """{exercise or step: its ladder} over the reference and the ungraded exercises, every notebook's."""
    found: dict[str, list[str]] = {}
    for path in (*sorted(spec.SOLUTIONS.glob("*.py")), *sorted(EXERCISES.glob("*.py"))):
        found |= ladders(path.read_text(), path.name)
    return found


def hints_table(setting=None):
    """The text of generated/hints.json under the setting (the course's unless given): its mode, every ladder,
    and the exercises each cataloged mistake's edits change, by the mistake's id; with none, the mode alone."""
    setting = setting or hints_setting()
    table: dict = {"mode": setting, "ladders": {}, "mistakes": {}}
    if setting != "none":
        table["ladders"] = every_ladder()
        table["mistakes"] = _mistakes_exercises(set(table["ladders"]))
    return json.dumps(table, indent=1, ensure_ascii=False) + "\n"


def _mistakes_exercises(laddered):
    """{mistake id: the exercises its edits change}: the top-level definitions of its component's reference whose
    code differs once the edits are made."""
    from autograder.engine.authoring import mistakes

    found = {}
    for mistake in mistakes.CATALOG:
        source = spec.BY_ID[mistake.component].reference.read_text()
        before, after = _definitions_dumped(source), _definitions_dumped(mistakes.apply(source, mistake.edits))
        found[mistake.id] = [name for name in before if before[name] != after.get(name) and name in laddered]
    return found


def _definitions_dumped(source):
    return {node.name: ast.dump(node) for node in ast.parse(source).body if hasattr(node, "name")}
