"""Which cases each test of a suite runs on: cases() marks a test, and conftest.py parametrizes it from the run's
case set (the hidden suites' own, or the public checks')."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

Test = TypeVar("Test", bound=Callable[..., None])
# The attribute of a test function that holds its selections, which conftest.py reads.
SELECTIONS = "case_selections"


@dataclass(frozen=True)
class Selection:
    """One cases() of a test: see there."""

    kinds: tuple[str, ...]
    component: str | None
    trained: bool
    pick: slice


def cases(
    *kinds: str, component: str | None = None, trained: bool = False, pick: slice = slice(None)
) -> Callable[[Test], Test]:
    """Which cases a test runs on: those of these kinds, of its module's component unless another is named, only
    those graded in train mode where trained, sliced by pick. Stacked, a test runs on each selection in turn."""

    def select(test: Test) -> Test:
        setattr(test, SELECTIONS, [Selection(kinds, component, trained, pick), *selections(test)])
        return test

    return select


def selections(test: Callable[..., object]) -> list[Selection]:
    """The selections cases() gave a test, first to last; none for a test that takes no case."""
    found: list[Selection] = getattr(test, SELECTIONS, [])
    return found
