"""The steps towards `decoder`, in the order the notebook asks them."""

import torch

from autograder.engine.authoring.builder import In, attention_mask, randn, random_mask
from autograder.engine.authoring.steps.encoder import NORM_ARGS, norm
from autograder.engine.authoring.steps.step import Step, layer_norm, of, plain_attention


def _self_mask(c):
    for case_id, about, lengths in (
        ("padded", "T=4, attention_mask (2, 4), lengths 4 and 2", (4, 2)),
        ("no-padding", "T=5, attention_mask None", None),
    ):
        if lengths is None:
            c.add(case_id, about, {}, [5], dtypes=(None,))
            continue
        inputs = {"attention_mask": attention_mask(list(lengths), 4)}
        c.add(case_id, about, inputs, [4, In("attention_mask")], dtypes=(None,))


def _masked_block(c):
    causal_padded = torch.ones(4, 4, dtype=torch.bool).tril() & attention_mask([4, 3], 4).bool()[:, None, None, :]
    for case_id, about, D, mask in (
        ("causal", "x (2, 4, 4), the causal (T, T) mask, eps 0.1", 4, torch.ones(4, 4, dtype=torch.bool).tril()),
        ("causal-padding", "x (2, 4, 6), causal and padding (B, 1, T, T), eps 0.1", 6, causal_padded),
    ):
        g = c.generator(case_id)
        inputs = {"x": randn(g, 2, 4, D), "self_mask": mask, **norm(g, D)}
        c.add(case_id, about, inputs, [In("x"), In("self_mask"), *NORM_ARGS, 0.1])


def _cross_block(c):
    for case_id, about, B, T, S, D, kind in (
        ("padding", "x (2, 3, 4), memory (2, 5, 4), a (B, 1, 1, S) padding mask, eps 0.1", 2, 3, 5, 4, "padding"),
        ("no-mask", "x (1, 2, 6), memory (1, 4, 6), cross_mask None, eps 0.1", 1, 2, 4, 6, None),
    ):
        g = c.generator(case_id)
        inputs = {"x": randn(g, B, T, D), "memory": randn(g, B, S, D), **norm(g, D)}
        mask = None
        if kind:
            inputs["cross_mask"] = random_mask(g, kind, B, T, S)
            mask = In("cross_mask")
        c.add(case_id, about, inputs, [In("x"), In("memory"), mask, *NORM_ARGS, 0.1])


STEPS = of(
    "decoder",
    Step(
        "self_attention_mask",
        "the self mask",
        "`self_attention_mask(T, attention_mask)`: `causal_mask(T)`, (T, T), when there is no target padding; "
        "`causal_mask(T) & padding_mask(attention_mask)`, (B, 1, T, T), when there is, as in the picture above.",
        hint=(
            "True where a key is both at or before its query and a real token, (B, 1, T, T): both conditions, not"
            " either; the causal mask alone when attention_mask is None."
        ),
        wrong=lambda length, attention_mask=None: (
            torch.ones(length, length, dtype=torch.bool).tril()
            | (attention_mask is not None and attention_mask.bool()[:, None, None, :])
        ),
        cases=_self_mask,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "masked_self_attention_block",
        "the masked self-attention sub-block, with the plainest attention",
        "One head, no projections: x on a head axis of size 1, (B, 1, T, D), is the query, the key and the value "
        "of your `scaled_dot_product_attention`, with the self mask; then add & norm, LN(x + context), with the "
        "weight, bias and eps given (the library's layer norm is allowed here).",
        hint=(
            "x is the query, the key and the value, as a single head, with self_mask; then the layer norm of x "
            "plus the context, with the weight, bias and eps given: the residual is added before the norm."
        ),
        wrong=lambda x, self_mask, weight, bias, eps: layer_norm(
            plain_attention(x, x, x, self_mask)[0], weight, bias, eps
        ),  # no residual
        cases=_masked_block,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "cross_attention_block",
        "the cross-attention sub-block, with the plainest attention",
        "The worked example above, on a batch, with add & norm. The queries come from x, (B, T, D); the keys and "
        "the values from the memory, (B, S, D); the cross mask (B, 1, 1, S) hides the source's padding; the "
        "context, (B, T, D), is added to x.",
        hint=(
            "the queries come from x, the keys AND the values from memory, with cross_mask; the context (B, T, D)"
            " is added to x, then normalised with the weight, bias and eps given."
        ),
        wrong=lambda x, memory, cross_mask, weight, bias, eps: layer_norm(
            x + plain_attention(x, x, x)[0], weight, bias, eps
        ),  # keys and values from the target itself
        cases=_cross_block,
        minutes=10,
        difficulty="medium",
    ),
)
