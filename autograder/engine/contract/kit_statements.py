"""What of a student's code is the kit's: the statements that import the kit (a self-check line beside an exercise:
`from autograder.notebook import check_multihead; check_multihead(MultiHeadAttention)`) and those that read what such
an import bound, which the loader leaves out of what runs."""

import ast

# Statements that import these (and the statements that use what they bound) are the kit's, not the student's.
KIT_PACKAGE = "autograder"
KIT_MODULES = (KIT_PACKAGE, "solutions")


def without_kit(code: str | None, kit_names: set[str] | None = None) -> str | None:
    """The code less its top-level statements that import the kit or read what such an import bound.

    Each is replaced by `pass` on its own lines, so line numbers stay the student's; None when nothing
    else is left. Definitions stay whatever they mention: only running them could tell. Code that does
    not parse is left as it is, for the child to report with its line. kit_names: the names the kit bound
    before this code (a notebook's earlier cells), updated: a name the student binds again is theirs.
    """
    if code is None:
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, RecursionError, MemoryError):
        return code
    kit_names = set() if kit_names is None else kit_names
    dropped: list[ast.stmt] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kit_names.discard(statement.name)
            continue
        read = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if _imports_kit(statement) or read & kit_names:
            kit_names |= _bound_names(statement)
            dropped.append(statement)
        else:
            kit_names -= _bound_names(statement)
    if not dropped:
        return code
    if len(dropped) == len(tree.body):
        return None
    kept_lines = {n for s in tree.body if s not in dropped for n in _lines(s)}
    if any(n in kept_lines for s in dropped for n in _lines(s)):
        # A kept statement shares a line with a dropped one (`f(); check(f)`): rebuilt from the tree.
        tree.body = [ast.Pass() if s in dropped else s for s in tree.body]
        return ast.unparse(tree)
    lines = code.splitlines()
    for statement in dropped:
        numbers = _lines(statement)
        lines[numbers.start - 1 : numbers.stop - 1] = ["pass"] + [""] * (len(numbers) - 1)
    return "\n".join(lines)


def _lines(statement: ast.stmt) -> range:
    """The numbers of the lines a statement spans (ast.parse gives every statement its last line)."""
    return range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)


def _imports_kit(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import):
        return any(alias.name.split(".")[0] in KIT_MODULES for alias in statement.names)
    return isinstance(statement, ast.ImportFrom) and (statement.module or "").split(".")[0] in KIT_MODULES


def _bound_names(statement: ast.stmt) -> set[str]:
    """Every name a top-level statement binds: import aliases and assignment targets, wherever they are."""
    names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(statement):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names
