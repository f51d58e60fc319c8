"""What a step of the notebooks is: one entry, whole."""

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import torch
from torch.nn import functional as F

from autograder.engine.judge.fixtures import FLOATS


@dataclass(frozen=True)
class Step:
    """A helper towards an exercise, with its public check, never graded."""

    name: str  # the reference's helper: a top-level function of the component's file that is no SPEC name
    title: str  # the notebook's "**Step N, TITLE.**", N its place among its component's steps
    says: str  # what the notebook says of it after its title (Markdown)
    hint: str  # the hint under its failing check: what to compute, as the check compares it
    wrong: Callable  # a wrong version as students write it, whose check shows the hint (tests/test_steps.py)
    cases: Callable  # cases(c): adds its public cases through c, a Cases of this step
    component: str = ""  # whose file defines it: set from the module that declares it
    minutes: int = field(
        kw_only=True
    )  # what it takes a student, as the notebook states it (tests/unit/test_workload.py)
    difficulty: str = field(kw_only=True)  # easy, medium or hard

    def heading(self, number):
        return f"**Step {number}, {self.title}** ({self.minutes} min, {self.difficulty}). {self.says}"


def of(component, *steps):
    """component's steps, as its module writes them, each given the component."""
    return [replace(step, component=component) for step in steps]


class Cases:
    """A step's public cases, written through a Builder: the expected values are the reference helper's."""

    def __init__(self, builder, step):
        self.builder, self.step = builder, step

    def generator(self, case_id):
        return torch.Generator().manual_seed(self.builder.seed(f"{self.step.name}-{case_id}"))

    def add(self, case_id, about, inputs, args, outputs=("output",), kwargs=None, dtypes=FLOATS):
        self.builder.add(
            f"{self.step.name}-{case_id}",
            about,
            "step",
            self.step.name,
            args=args,
            kwargs=kwargs,
            outputs=list(outputs),
            inputs=inputs,
            dtypes=list(dtypes),
            meta={"component": self.step.component},
            train_outputs=[],
        )


# What the wrong versions of later steps build on, written plainly.
def plain_attention(query, key, value, mask=None):
    """(context, weights) of one head of attention, on (..., T, Dh) queries and (..., S, Dh) keys and values."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = scores.softmax(-1)
    return weights @ value, weights


def layer_norm(x, weight, bias, eps):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)
