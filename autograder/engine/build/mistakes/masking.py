"""The catalog's mistakes in `masking`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "masking",
    (
        "causal mask without its diagonal",
        "the causal mask hides the diagonal, so no position sees itself; "
        "keep it: True at [i, j] where j <= i (tril(), not tril(-1)).",
        [(".tril()", ".tril(-1)")],
    ),
    (
        "causal mask upper-triangular",
        "the causal mask is upper-triangular, so each position sees the future; "
        "make it lower-triangular (tril): True where j <= i.",
        [(".tril()", ".triu()")],
    ),
    (
        "causal mask as 0 and -inf",
        "the causal mask is PyTorch's additive float mask (0 and -inf); the kit's "
        "masks are boolean, True where attending is allowed.",
        [
            (
                "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                "torch.zeros(size, size, device=device).masked_fill(torch.ones(size, size, dtype=torch.bool, device=device).triu(1), float('-inf'))",
            )
        ],
    ),
    (
        "padding mask inverted",
        "the padding mask is True at the padding; it must be True at the real tokens (where attention_mask is 1).",
        [("attention_mask.bool()[:, None, None, :]", "(attention_mask == 0)[:, None, None, :]")],
    ),
    (
        "padding mask shaped (B, 1, S, 1)",
        "the padding mask is shaped (B, 1, S, 1), so it masks queries, not "
        "keys; shape it (B, 1, 1, S) with [:, None, None, :].",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()[:, None, :, None]")],
    ),
    (
        "padding mask left (B, S)",
        "the padding mask keeps its (B, S) shape, which does not broadcast over heads "
        "and queries; reshape it to (B, 1, 1, S).",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()")],
    ),
    (
        "padding mask left as integers",
        "the padding mask keeps the 0/1 integers; convert it with .bool(), "
        "since ~ on an integer tensor is not a logical not.",
        [("attention_mask.bool()[:, None, None, :]", "attention_mask[:, None, None, :]")],
    ),
)
