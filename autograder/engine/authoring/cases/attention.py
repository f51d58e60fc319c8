"""The cases of `attention`."""

import torch

from autograder.engine.authoring.builder import (
    In,
    randn,
    random_mask,
)


def build(b):
    shapes = [
        ("3d-no-mask", "3-D (B=2, T=5, Dh=8), no mask", (2,), 5, 5, 8, 8, None),
        ("3d-T-ne-S-Dv-ne-Dh", "3-D, T=4 queries, S=7 keys, Dv=6", (3,), 4, 7, 8, 6, None),
        ("3d-TxS-mask", "3-D with a (T, S) mask", (2,), 5, 6, 8, 8, "TS"),
        ("4d-no-mask", "4-D (B=2, H=4, T=5, Dh=8), no mask", (2, 4), 5, 5, 8, 8, None),
        ("4d-causal-mask", "4-D with a causal (T, T) mask", (2, 4), 6, 6, 8, 8, "causal"),
        ("4d-padding-mask", "4-D, T=5, S=7, (B, 1, 1, S) padding mask", (2, 4), 5, 7, 8, 8, "padding"),
        ("4d-full-mask", "4-D with a (B, 1, T, S) mask", (2, 3), 5, 7, 8, 8, "full"),
        ("batch-1", "4-D, batch of 1, (B, 1, 1, S) mask", (1, 2), 3, 4, 8, 8, "padding"),
    ]
    for case_id, about, lead, T, S, dh, dv, mask_kind in shapes:
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {
            "query": randn(g, *lead, T, dh, scale=1.5),
            "key": randn(g, *lead, S, dh, scale=1.5),
            "value": randn(g, *lead, S, dv),
        }
        if mask_kind:
            inputs["mask"] = random_mask(g, mask_kind, lead[0], T, S)
        args = [In("query"), In("key"), In("value")] + ([In("mask")] if mask_kind else [])
        b.add(
            case_id,
            about,
            "reference",
            "scaled_dot_product_attention",
            args=args,
            outputs=["output", "weights"],
            inputs=inputs,
        )
