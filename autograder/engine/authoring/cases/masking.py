"""The cases of `masking`."""

from autograder.engine.authoring.builder import (
    In,
    attention_mask,
)


def build(b):
    for size in (1, 4, 9):
        b.add(
            f"causal-{size}",
            f"causal_mask({size})",
            "causal",
            "causal_mask",
            args=[size],
            outputs=["mask"],
            inputs={},
            dtypes=[None],
        )
    for case_id, lengths, total in (
        ("padding-2x5", [5, 3], 5),
        ("padding-3x7", [7, 1, 4], 7),
        ("padding-no-pad", [4], 4),
    ):
        inputs = {"attention_mask": attention_mask(lengths, total)}
        b.add(
            case_id,
            f"padding_mask of a ({len(lengths)}, {total}) mask, lengths {lengths}",
            "padding",
            "padding_mask",
            args=[In("attention_mask")],
            outputs=["mask"],
            inputs=inputs,
            dtypes=[None],
        )
