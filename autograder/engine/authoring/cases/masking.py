"""The cases of `masking`."""

from autograder.engine.authoring.builder import (
    In,
    attention_mask,
)
from autograder.engine.contract.messages import DEVICE


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
    # The contract's device argument, by keyword. A mask made on the default device instead has every value right on a
    # CPU: the hidden suite asks for this case's mask on torch's lazy-tensor device as well, where it shows.
    b.add(
        "causal-6-device",
        "causal_mask(6, device=torch.device('cpu'))",
        "causal",
        "causal_mask",
        args=[6],
        kwargs={"device": {DEVICE: "cpu"}},
        outputs=["mask"],
        inputs={},
        dtypes=[None],
    )
    for case_id, lengths, total, left in (
        ("padding-2x5", [5, 3], 5, False),
        ("padding-3x7", [7, 1, 4], 7, False),
        ("padding-no-pad", [4], 4, False),
        # Padding on the left, as decoder-only models batch prompts: a mask is read token by token.
        ("padding-left-3x6", [6, 2, 4], 6, True),
    ):
        inputs = {"attention_mask": attention_mask(lengths, total, left=left)}
        b.add(
            case_id,
            f"padding_mask of a ({len(lengths)}, {total}) mask, lengths {lengths}{', padded on the left' * left}",
            "padding",
            "padding_mask",
            args=[In("attention_mask")],
            outputs=["mask"],
            inputs=inputs,
            dtypes=[None],
        )
