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
    # The contract's device argument, by keyword. A mask made on the default device instead is not shown on a CPU (the
    # only device): asked for on the meta device, it would be, but the first meta operation of a process imports
    # torch's Python kernels (about 1.8 CPU-s, more than a busy machine's time limit), and code that makes a mask and
    # moves it could not run there.
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
