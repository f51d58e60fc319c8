"""The cases of `feedforward`."""

import torch

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    config_arg,
    config_case,
    randn,
    random_params,
)


def build(b):
    init = [config_arg(CONFIG)]
    for case_id, about, shape in (
        ("3d", "x (2, 5, D), large enough that GELU approximations differ", (2, 5, 32)),
        ("batch-1", "x (1, 3, D)", (1, 3, 32)),
        ("single-position", "x (3, 1, D)", (3, 1, 32)),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        b.add(
            case_id,
            about,
            "reference",
            "FeedForward",
            init=init,
            params=random_params(b.reference["FeedForward"], init, b.seed(case_id)),
            args=[In("x")],
            outputs=["output"],
            inputs={"x": randn(g, *shape, scale=2.0)},
        )
    config_case(b, "FeedForward", lambda g, c: {"x": randn(g, 2, 4, c.hidden_size, scale=2.0)}, args=["x"])
