"""The documentation a newcomer follows: every relative link leads somewhere, and every command it shows
still exists (a `python -m autograder` command line that the kit's parser accepts, a make target, a path
in the kit)."""

import argparse
import contextlib
import io
import re
import shlex

import pytest

from autograder.__main__ import parser
from autograder.engine.contract import spec

ROOT = spec.KIT_ROOT
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "course" / "STUDENTS.md",
        ROOT / "breakout_questions" / "README.md",
        ROOT / "generated" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A path of the kit's written in backticks: it names a file or folder a reader is sent to.
KIT_PATH = re.compile(
    r"`((?:autograder|tests|benchmarks|docker|course|solutions|assignments|breakout_questions|docs|generated)/[\w./-]*)`"
)


def _ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings."""
    headings = re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", path.read_text(), flags=re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def commands(text, programs=("python -m autograder ", "python3 -m autograder ")):
    """Each line of one of the programs (`python -m autograder ...`) in the text's code blocks and inline code,
    comments cut off, without the program's name."""
    found = []
    for block in re.findall(r"```(?:sh|bash)?\n(.*?)```", text, re.S) + re.findall(r"`([^`\n]+)`", text):
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            found += [line.removeprefix(program) for program in programs if line.startswith(program)]
    return found


def nbgrader_rejected(line):
    """Why the pinned nbgrader would refuse this documented command (`autograde transformer --force`), or None: each
    command word must name a subcommand (`db student add`), each option be one of that command's, or a setting
    (`--Class.trait`) of a class nbgrader or the kit configures; and the command must show its --help."""
    from nbgrader.apps import NbGraderApp
    from traitlets.config import Configurable
    from traitlets.utils.importstring import import_item

    import autograder.nbgrader.export
    import autograder.nbgrader.grades
    import autograder.nbgrader.late  # noqa: F401 - the kit's classes, which a --Class.trait option may set

    # An app's subcommands, aliases and flags are traits of some classes: an instance (not the singleton) has them.
    tokens, app, words = shlex.split(line), NbGraderApp(), []
    for token in tokens:
        if token.startswith("-") or not app.subcommands:
            break
        if token not in app.subcommands:
            return f"{line}: no command {' '.join([*words, token])}"
        found = app.subcommands[token][0]
        app, words = (import_item(found) if isinstance(found, str) else found)(), [*words, token]
    if not words:
        return f"{line}: no command"
    classes = {c.__name__: c for c in _subclasses(Configurable)}
    for option in (t[2:].split("=")[0] for t in tokens if t.startswith("--")):
        owner, _, trait = option.rpartition(".")
        known = option in app.aliases or option in app.flags
        if not known and owner in classes and trait not in classes[owner].class_traits(config=True):
            return f"{line}: {owner} has no setting {trait}"
        if not known and owner not in classes:
            return f"{line}: no option --{option}"
    top, shown = NbGraderApp(), io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown), pytest.raises(SystemExit) as exit:
        top.initialize([*words, "--help"])
    # Each subcommand's app is a singleton of its class: the next command's would be this one, configured.
    while (top := getattr(top, "subapp", None)) is not None:
        type(top).clear_instance()
    return None if exit.value.code == 0 else f"{line}: --help failed: {shown.getvalue()[-500:]}"


def _subclasses(cls):
    return {cls} | {sub for direct in cls.__subclasses__() for sub in _subclasses(direct)}


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_docs_relative_links_lead_to_a_file_and_heading_that_exist(doc):
    broken = []
    for target in LINK.findall(doc.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no such heading")
    assert broken == []


def rejected(line):
    """Why the kit's command line would refuse this documented command, or None. A synopsis (`grade PATH
    [--json FILE]`) or a bare command is held to its command's name and options; a whole command line
    must parse as written."""
    tokens = shlex.split(line.replace("[", " ").replace("]", " "))
    commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    if tokens[0] not in commands:
        return f"{line}: no command {tokens[0]}"
    unknown = [
        t.split("=")[0]
        for t in tokens
        if t.startswith("--") and t.split("=")[0] not in commands[tokens[0]]._option_string_actions
    ]
    if unknown:
        return f"{line}: no option {', '.join(unknown)}"
    if re.search(r"[\[\]]|\b[A-Z]{2,}\b", line) or len(tokens) == 1:
        return None
    try:
        parser().parse_args(tokens)
    except SystemExit:
        return f"{line}: refused as written"
    return None


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_docs_commands_are_ones_the_kit_accepts(doc):
    text = doc.read_text()
    assert [r for r in map(rejected, commands(text)) if r] == []
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    assert sorted(set(re.findall(r"`make (\w[\w-]*)", text)) - targets) == []


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_docs_nbgrader_commands_exist_in_the_pinned_nbgrader_and_show_their_help(doc):
    """The docs once told instructors to run `nbgrader formgrader`, which nbgrader 0.9 does not have."""
    assert [r for r in map(nbgrader_rejected, commands(doc.read_text(), ("nbgrader ",))) if r] == []


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_docs_kit_commands_show_their_help(doc, capsys):
    for line in commands(doc.read_text()):
        name = shlex.split(line)[0]
        with pytest.raises(SystemExit) as exit:
            parser().parse_args([name, "--help"])
        assert exit.value.code == 0 and f"python -m autograder {name}" in capsys.readouterr().out, line


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_docs_paths_of_the_kit_exist(doc):
    named = {m.rstrip(".") for m in KIT_PATH.findall(doc.read_text()) if not re.search(r"[<>*{]|NN", m)}
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_docs_checks_catch_a_broken_link_and_an_unknown_command(tmp_path):
    doc = tmp_path / "GUIDE.md"
    doc.write_text(
        "# Guide\n\nSee [it](missing.md) and [here](#nowhere).\n\n```sh\npython -m autograder grade-all x --no-such\n```\n"
    )
    assert LINK.findall(doc.read_text()) == ["missing.md", "#nowhere"] and "nowhere" not in anchors(doc)
    assert rejected(commands(doc.read_text())[0]) == "grade-all x --no-such: no option --no-such"
    assert rejected("grade-all x --workers 0") == "grade-all x --workers 0: refused as written"
    assert nbgrader_rejected("formgrader") == "formgrader: no command formgrader"
    assert nbgrader_rejected("db student drop alice") == "db student drop alice: no command db student drop"
    assert nbgrader_rejected("autograde transformer --forse") == "autograde transformer --forse: no option --forse"
    assert (
        nbgrader_rejected("autograde t --KitGrades.time_limt=1")
        == "autograde t --KitGrades.time_limt=1: KitGrades has no setting time_limt"
    )
    assert nbgrader_rejected("db student add alice --last-name=Liddell") is None
    assert (
        rejected("grade PATH [--json FILE]") is None and rejected("regrade PATH") == "regrade PATH: no command regrade"
    )


def test_docs_students_readme_names_the_kernel_and_the_torch_pin_the_kit_uses():
    from autograder.course import jupyter

    text = (ROOT / "course" / "STUDENTS.md").read_text()
    pin = next(line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("torch=="))
    assert jupyter.KERNEL_DISPLAY_NAME in text
    assert set(re.findall(r"torch==[\d.]+", text)) == {pin}
    for doc in (ROOT / "README.md", ROOT / "docs" / "TERM.md"):
        assert set(re.findall(r"torch==[\d.]+", doc.read_text())) == {pin}, doc.name


def test_docs_count_the_questions_the_bank_holds():
    from autograder.breakout import bank

    count = sum(len(part.questions) for part in bank.load())
    for doc in (ROOT / "README.md", ROOT / "docs" / "INSTRUCTORS.md"):
        assert set(re.findall(r"(\d+)\s+questions", doc.read_text().replace("\n", " "))) == {str(count)}, doc.name


def test_docs_give_each_components_points_as_the_spec_does():
    text = " ".join((ROOT / "docs" / "GRADING.md").read_text().split())
    said = re.search(r"\*\*Points\.\*\* (.+?) \(total (\d+);", text)
    assert said, "GRADING.md's Points line moved: update this test"
    pairs = [(component, int(points)) for component, points in re.findall(r"(\w+) (\d+)", said.group(1))]
    assert pairs == [(c.id, c.points) for c in spec.COMPONENTS] and int(said.group(2)) == spec.TOTAL_POINTS
    said = re.search(r"\*\*Course extensions\.\*\* (.+?) \(total (\d+);", text)
    assert said, "GRADING.md's Course extensions line moved: update this test"
    pairs = [(component, int(points)) for component, points in re.findall(r"(\w+) (\d+)", said.group(1))]
    assert pairs == [(c.id, c.points) for c in spec.EXTENSIONS]
    assert int(said.group(2)) == sum(c.points for c in spec.EXTENSIONS)


def test_docs_table_of_notebooks_names_the_components_each_grades():
    from autograder.course import notebooks

    rows = re.findall(r"^\| `(\d\d_\w+)` \| .+? \| ([\w, ]+) \|$", (ROOT / "docs" / "INSTRUCTORS.md").read_text(), re.M)
    graded = {
        part.stem: [cell.args[0] for cell in notebooks.parse(part.read_text()) if cell.kind == "graded"]
        for part in notebooks.parts()
    }
    assert {stem: [] if said == "none" else said.split(", ") for stem, said in rows} == graded


# A tolerance quoted in prose: "float32 `atol 5e-5, rtol 1e-4`" (after a component's id in backticks where it is
# that component's own), or "5e-5 + 1e-4·|expected|" as a check's message and the course's prose say it.
TOLERANCE_QUOTE = re.compile(
    r"(?:`(\w+)` )?(float32|float64) `atol ([\d.e-]+), rtol ([\d.e-]+)`|([\d.e-]+) \+ ([\d.e-]+)·\|expected\|"
)
# The quotes of the second kind, in order, file by file: whose tolerance each is, in which dtype.
QUOTED = {
    "docs/GRADING.md": [("multihead", "float32")],  # a multihead failure's message, as an example
    "course/parts/03_feedforward_layernorm.md": [("feedforward", "float32")],  # GELU's tanh approximation
}


def test_docs_quote_the_tolerances_the_checks_use():
    """Every tolerance that prose quotes is what tolerances.tolerance gives: GRADING.md the table, which every
    component without one of its own is held to, and each component's own (OVERRIDES) by its id."""
    from autograder.engine.judge import tolerances

    texts = {
        path: " ".join((ROOT / path).read_text().split())
        for path in [*_ids(DOCS), *_ids(sorted((ROOT / "course" / "parts").glob("*.md")))]
    }
    table, quoted = set(), {}
    for path, text in texts.items():
        for component, dtype, atol, rtol, message_atol, message_rtol in TOLERANCE_QUOTE.findall(text):
            if dtype:
                said = tolerances.Tolerance(rtol=float(rtol), atol=float(atol))
                if component:
                    assert tolerances.OVERRIDES.get((component, dtype)) == said, f"{path}: {component}'s {dtype}"
                else:
                    others = {c.id for c in spec.COMPONENTS} - {c for c, d in tolerances.OVERRIDES if d == dtype}
                    assert {tolerances.tolerance(dtype, c) for c in others} == {said}, f"{path}: {dtype}"
                table.add((path, component or None, dtype))
            else:
                quoted.setdefault(path, []).append(
                    tolerances.Tolerance(rtol=float(message_rtol), atol=float(message_atol))
                )
    assert quoted == {path: [tolerances.tolerance(d, c) for c, d in whose] for path, whose in QUOTED.items()}
    assert {("docs/GRADING.md", None, d) for d in tolerances.TOLERANCES} | {
        ("docs/GRADING.md", c, d) for c, d in tolerances.OVERRIDES
    } == table
