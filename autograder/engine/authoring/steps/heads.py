"""The steps towards `heads`, in the order the notebook asks them."""

import torch
from torch.nn import functional as F

from autograder.engine.authoring.builder import In, randn
from autograder.engine.authoring.steps.step import Step, of


def _pool(c):
    for case_id, about, B, T, D in (
        ("B2-T3", "hidden_states (2, 3, 4), weight (4, 4), bias (4,)", 2, 3, 4),
        ("B3-T5", "hidden_states (3, 5, 6), weight (6, 6), bias (6,)", 3, 5, 6),
    ):
        g = c.generator(case_id)
        inputs = {"hidden_states": randn(g, B, T, D), "weight": randn(g, D, D, scale=0.7), "bias": randn(g, D)}
        c.add(case_id, about, inputs, [In("hidden_states"), In("weight"), In("bias")])


STEPS = of(
    "heads",
    Step(
        "pool",
        "the pooler",
        "Position 0 of every sequence, through a dense layer (weight (D, D) and bias (D,) as tensors), then tanh: "
        "(B, T, D) → (B, D).",
        hint=(
            "position 0 alone (not a mean over the positions, nor the last one), through the dense layer given, "
            "then tanh."
        ),
        wrong=lambda hidden_states, weight, bias: torch.tanh(F.linear(hidden_states.mean(1), weight, bias)),
        cases=_pool,
        minutes=5,
        difficulty="easy",
    ),
)
