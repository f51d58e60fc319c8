"""Submissions that do no work: the release stubs, each NotImplementedError replaced by a made-up answer."""

import ast

from autograder.engine.contract import spec

SUBMISSION = spec.KIT_ROOT / "tests" / "submissions" / "no_work"
# What each answers, in tests/submissions/no_work/fakes.py: zeros, random values, the input itself, a
# copy of it, NaN, a tensor subclass that equals everything, an object that only converts to an array.
MODES = ("zeros", "random", "identity", "copy", "nan", "always-equal", "array-like")


def no_work_submission(folder, mode):
    folder.mkdir(parents=True)
    (folder / "fakes.py").write_text(
        (SUBMISSION / "fakes.py").read_text().replace('MODE = "zeros"', f"MODE = {mode!r}")
    )
    for component in spec.COMPONENTS:
        source = component.stub.read_text()
        (folder / component.stub.name).write_text("import fakes\n" + _answered(source))
    return folder


def _answered(source):
    """The stub with each `raise NotImplementedError(...)` replaced by `return fakes.answer(<function>, locals())`."""
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                child.parent_name = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        if isinstance(node, ast.FunctionDef):
            for statement in node.body:
                if isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement):
                    name = getattr(node, "parent_name", "") + node.name
                    indent = " " * statement.col_offset
                    lines[statement.lineno - 1] = f"{indent}return fakes.answer({name!r}, locals())"
    return "\n".join(lines) + "\n"
