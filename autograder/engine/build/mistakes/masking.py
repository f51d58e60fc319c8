"""The catalog's mistakes in `masking`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "masking",
    (
        "causal mask without its diagonal",
        [(".tril()", ".tril(-1)")],
    ),
    (
        "causal mask upper-triangular",
        [(".tril()", ".triu()")],
    ),
    (
        "causal mask as 0 and -inf",
        [
            (
                "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                "torch.zeros(size, size, device=device).masked_fill(torch.ones(size, size, dtype=torch.bool, device=device).triu(1), float('-inf'))",
            )
        ],
    ),
    (
        "padding mask inverted",
        [("attention_mask.bool()[:, None, None, :]", "(attention_mask == 0)[:, None, None, :]")],
    ),
    (
        "padding mask shaped (B, 1, S, 1)",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()[:, None, :, None]")],
    ),
    (
        "padding mask left (B, S)",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()")],
    ),
    (
        "padding mask left as integers",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask[:, None, None, :]")],
    ),
)
