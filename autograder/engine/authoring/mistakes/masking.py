"""The catalog's mistakes in `masking`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

MISTAKES = entries(
    "masking",
    Mistake(
        "causal mask without its diagonal",
        says="the causal mask hides the diagonal, so no position sees itself; keep it: True at [i, j] where j <= i "
        "(tril(), not tril(-1)).",
        edits=[(".tril()", ".tril(-1)")],
    ),
    Mistake(
        "causal mask upper-triangular",
        says="the causal mask is upper-triangular, so each position sees the future; make it lower-triangular (tril): "
        "True where j <= i.",
        edits=[(".tril()", ".triu()")],
    ),
    Mistake(
        "causal mask as 0 and -inf",
        says="the causal mask is PyTorch's additive float mask (0 and -inf); the kit's masks are boolean, True where "
        "attending is allowed.",
        edits=[
            (
                "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                "torch.zeros(size, size, device=device).masked_fill(torch.ones(size, size, dtype=torch.bool, device=device).triu(1), float('-inf'))",
            )
        ],
    ),
    Mistake(
        "padding mask inverted",
        says="the padding mask is True at the padding; it must be True at the real tokens (where attention_mask is 1).",
        edits=[("attention_mask.bool()[:, None, None, :]", "(attention_mask == 0)[:, None, None, :]")],
    ),
    Mistake(
        "padding mask shaped (B, 1, S, 1)",
        says="the padding mask is shaped (B, 1, S, 1), so it masks queries, not keys; shape it (B, 1, 1, S) with [:, "
        "None, None, :].",
        edits=[("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()[:, None, :, None]")],
    ),
    Mistake(
        "padding mask left (B, S)",
        says="the padding mask keeps its (B, S) shape, which does not broadcast over heads and queries; reshape it to "
        "(B, 1, 1, S).",
        edits=[("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()")],
    ),
    Mistake(
        "padding mask left as integers",
        says="the padding mask keeps the 0/1 integers; convert it with .bool(), since ~ on an integer tensor is not a "
        "logical not.",
        edits=[("attention_mask.bool()[:, None, None, :]", "attention_mask[:, None, None, :]")],
    ),
)
