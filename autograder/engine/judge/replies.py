"""A child's replies as the judge keeps them: checked, bounded and made visible before anything reads them.

Student code shares the child's socket and may send anything; nothing a child sends is used until it has been
through here."""

import math

import numpy as np

from autograder.engine.contract import messages, protocol, spec

MAX_TEXT = 2000  # characters of any one message from a child that the judge keeps
MAX_OPTIONS = 26  # letters in one choice answer of a quiz, at most


def answer(value: object) -> object:
    """A quiz answer as the child sent it, checked."""
    if isinstance(value, dict) and isinstance(value.get(messages.OTHER), str):
        return type(text(value[messages.OTHER], 50), (), {})()
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list) and len(value) <= MAX_OPTIONS and all(isinstance(x, str) for x in value):
        return [text(x, 50) for x in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 1e300:
        return math.inf  # beyond a float: the bank says it is not a finite number
    return value if value is None or isinstance(value, (bool, int, float)) else object()


def places(value: object) -> list[list[int]]:
    """The [line, column] pairs of statements not to run, as the parse child sent them, checked."""
    if not isinstance(value, list):
        return []
    return [
        [int(a), int(b)]
        for a, b in (p for p in value if isinstance(p, list) and len(p) == 2)
        if type(a) is int and type(b) is int
    ]


def by_component(table: object, most: int = 5) -> dict[str, list[str]]:
    """{component id: [text, ...]} as the parse child sent it, checked and bounded."""
    if not isinstance(table, dict):
        return {}
    return {
        c: [text(r) for r in reasons][:most]
        for c, reasons in table.items()
        if c in spec.BY_ID and isinstance(reasons, list)
    }


def text(value: object, limit: int | None = MAX_TEXT) -> str:
    """A child's string as the judge keeps it: a string, visible (protocol.visible), and no longer than limit."""
    found = value if isinstance(value, str) else str(value)
    found = (
        found
        if limit is None or len(found) <= limit
        else found[:limit] + f" [... {len(found) - limit} more characters]"
    )
    return protocol.visible(found)


def texts(value: object) -> object:
    """A child's reply with every string in it made text: the suites quote its type names and dtypes. A
    tensor is an array with its dtype's name; anything else that says it is one is the submission's forgery."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [texts(v) for v in value]
    if isinstance(value, dict):
        if messages.TENSOR in value and not (
            isinstance(value[messages.TENSOR], np.ndarray) and isinstance(value.get("dtype"), str)
        ):
            return {messages.OTHER: "something that claims to be a tensor"}
        return {k: texts(v) for k, v in value.items()}
    return value
