"""The steps towards `feedforward`, in the order the notebook asks them."""

import torch

from autograder.engine.authoring.builder import In, randn
from autograder.engine.authoring.steps.step import Step, of


def _gelu(c):
    g = c.generator("range")
    x = torch.cat([torch.linspace(-4, 4, 17), randn(g, 15, scale=2.0)]).view(2, 16)
    c.add("range", "x (2, 16): -4 to 4 in steps of 0.5, and 15 random values", {"x": x}, [In("x")])


STEPS = of(
    "feedforward",
    Step(
        "gelu",
        "the exact GELU",
        "The exact x·Φ(x), not the tanh approximation, on a tensor of any shape, in its dtype.",
        hint="the exact GELU, 0.5·x·(1 + erf(x / sqrt(2))): not the tanh approximation, nor x·sigmoid(1.702·x).",
        wrong=lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
        cases=_gelu,
        minutes=10,
        difficulty="medium",
    ),
)
