"""The cases of `layernorm`."""

import torch

from autograder.engine.authoring.builder import (
    In,
    randn,
)


def build(b):
    cases = [
        ("3d", "x (2, 5, 32), random weight and bias", (2, 5, 32), [32], "reference"),
        ("2d", "x (7, 16)", (7, 16), [16], "reference"),
        ("4d", "x (2, 3, 4, 16)", (2, 3, 4, 16), [16], "reference"),
        (
            "large-eps",
            "eps=0.5, large enough that which eps is used, and where, shows in the answer",
            (2, 5, 32),
            [32, 0.5],
            "large-eps",
        ),
        ("fresh-module", "a new LayerNorm(32) without loaded weights: weight 1, bias 0", (3, 4, 32), [32], "fresh"),
    ]
    for case_id, about, shape, init, kind in cases:
        g = torch.Generator().manual_seed(b.seed(case_id))
        params = None
        if kind != "fresh":
            params = {"weight": randn(g, shape[-1], scale=0.3, shift=1.0), "bias": randn(g, shape[-1], scale=0.3)}
        b.add(
            case_id,
            about,
            kind,
            "LayerNorm",
            init=init,
            params=params,
            args=[In("x")],
            outputs=["output"],
            inputs={"x": randn(g, *shape, scale=2.0, shift=0.5)},
        )
