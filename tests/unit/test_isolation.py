"""While a component is graded, every other name is the reference's and its own reference is nowhere."""

import pytest
import torch

from autograder.engine.contract import spec


@pytest.mark.parametrize("component", [c.id for c in spec.ALL_COMPONENTS])
def test_child_never_holds_the_graded_components_reference(component):
    held = spec.references_for(component)
    assert component not in {c.id for c in held}
    assert all(component not in spec.dependencies(c.id) for c in held)


@pytest.mark.parametrize("extension", [c.id for c in spec.EXTENSIONS])
def test_an_extension_builds_on_the_core_alone_whose_every_reference_its_child_holds(extension):
    core = {c.id for c in spec.COMPONENTS}
    assert spec.dependencies(extension) <= core
    assert {c.id for c in spec.references_for(extension)} == core


def test_integration_check_holds_no_reference():
    assert spec.references_for(spec.INTEGRATION) == ()


def test_the_reference_decides_what_it_has_and_the_students_additions_fill_the_rest():
    from typing import NamedTuple

    from torch import nn

    from autograder.engine.child import binding as isolation

    class Reference(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.size = size

        def forward(self):
            return "reference"

    class Student(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.size = size
            self.twice = 2 * size
            self.drop = nn.Dropout(0.1)
            self.extra = nn.Linear(2, 2)

        @classmethod
        def from_config(cls, config):
            return cls(config)

        def forward(self):
            return "student"

        def helper(self):
            return self.twice + 1

    extended = isolation.extend(Reference, Student)
    obj = extended.from_config(3)
    assert isinstance(obj, Reference) and type(obj).__name__ == "Reference"
    assert obj() == "reference" and obj.helper() == 7 and isinstance(obj.drop, nn.Dropout)
    assert [name for name, _ in obj.named_parameters()] == [], "weights load into the reference's modules only"
    with pytest.raises(AttributeError):
        obj.extra  # noqa: B018 - a module with weights of its own would hold weights that were never loaded

    class Pair(NamedTuple):
        output: int
        weights: int

    def reference_f(a, mask=None):
        return a, -a

    def student_f(a, mask=None, dropout=None):
        return Pair(10 * a, dropout)

    f = isolation.extend(reference_f, student_f)
    assert f(1) == (1, -1) and f(1).weights == -1, "the reference's values, under the student's names"
    assert f(1, None, "d") == f(1, dropout="d") == (1, -1), "the reference runs without what it does not take"
    assert f(mask=None, a=2) == (2, -2)
    assert f(1, dropout=nn.Dropout(0.1).eval()) == (1, -1), "a dropout in eval mode changes nothing: the reference runs"
    assert f(1, dropout=0.1) == (10, 0.1) and f(1, dropout=0.0) == (1, -1), (
        "where to apply a probability is the student's"
    )
    live = nn.Dropout(0.1)
    assert f(1, dropout=live) == (10, live), "a live dropout handed to a function that takes no value is the student's"

    def reference_attention(query, key, value, mask=None):
        return torch.tensor([[-1.0]]), torch.tensor([[0.5]])

    attention = isolation.extend(reference_attention, lambda query, key, value, mask=None, dropout=None: "student")
    twice = nn.Module()
    twice.forward = lambda weights: 2 * weights
    output, weights = attention(None, None, torch.tensor([[3.0]]), dropout=twice)
    assert (output.item(), weights.item()) == (3.0, 0.5), "a live dropout goes on the reference's weights, then @ value"

    def renamed(x, m=None):
        return ("student", x)

    assert isolation.extend(reference_f, renamed)(x=3) == ("student", 3), (
        "a call the reference cannot run is the student's"
    )
