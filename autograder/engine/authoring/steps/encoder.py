"""The steps towards `encoder`, in the order the notebook asks them."""

from autograder.engine.authoring.builder import In, attention_mask, randn, random_mask
from autograder.engine.authoring.steps.step import Step, layer_norm, of, plain_attention


def norm(g, D):
    """A layer norm's weight and bias, (D,) each, away from the identity so that leaving them out shows."""
    return {"weight": randn(g, D, scale=0.5, shift=1.0), "bias": randn(g, D, scale=0.5)}


NORM_ARGS = [In("weight"), In("bias")]


def _add_and_norm(c):
    for case_id, about, shape, eps in (
        ("3d-eps-0.5", "x and sublayer_output (2, 3, 4), eps 0.5", (2, 3, 4), 0.5),
        ("eps-1e-12", "x and sublayer_output (1, 2, 6), eps 1e-12", (1, 2, 6), 1e-12),
    ):
        g = c.generator(case_id)
        inputs = {
            "x": randn(g, *shape, shift=1.0),
            "sublayer_output": randn(g, *shape, scale=2.0),
            **norm(g, shape[-1]),
        }
        c.add(case_id, about, inputs, [In("x"), In("sublayer_output"), *NORM_ARGS, eps])


def _block(c):
    for case_id, about, B, T, D, kind in (
        ("padding", "x (2, 5, 4), a (B, 1, 1, T) padding mask, eps 0.1", 2, 5, 4, "padding"),
        ("no-mask", "x (1, 3, 6), mask None, eps 0.1", 1, 3, 6, None),
    ):
        g = c.generator(case_id)
        inputs = {"x": randn(g, B, T, D), **norm(g, D)}
        mask = None
        if kind:
            inputs["mask"] = random_mask(g, kind, B, T, T)
            mask = In("mask")
        c.add(case_id, about, inputs, [In("x"), mask, *NORM_ARGS, 0.1])


def _mask(c):
    for case_id, about, lengths, total, left in (
        ("right-padding", "attention_mask (2, 5), lengths 5 and 3, padding on the right", (5, 3), 5, False),
        ("left-padding", "attention_mask (3, 4), lengths 2, 4 and 1, padding on the left", (2, 4, 1), 4, True),
    ):
        inputs = {"attention_mask": attention_mask(list(lengths), total, left=left)}
        c.add(case_id, about, inputs, [In("attention_mask")], dtypes=(None,))


STEPS = of(
    "encoder",
    Step(
        "add_and_norm",
        "add & norm",
        "LN(x + sublayer_output) over the last dimension, with a layer norm's weight, bias and eps given as "
        "tensors and a number: the library's layer norm is allowed now that you have written your own.",
        hint=(
            "post-LN: the layer norm of the sum, LN(x + sublayer_output), with the weight, bias and eps given; "
            "not x + LN(sublayer_output)."
        ),
        wrong=lambda x, sublayer_output, weight, bias, eps: x + layer_norm(sublayer_output, weight, bias, eps),
        cases=_add_and_norm,
        minutes=5,
        difficulty="easy",
    ),
    Step(
        "self_attention_block",
        "the self-attention sub-block, with the plainest attention",
        "The worked example's sub-block, on a batch: x on a head axis of size 1, (B, 1, T, D), is the query, the "
        "key and the value of your `scaled_dot_product_attention`, with the mask; then your add & norm of x and "
        "the context.",
        hint=(
            "query, key and value are all x, as a single head, with the mask given; then add_and_norm with x as "
            "the residual, added before the norm."
        ),
        wrong=lambda x, mask, weight, bias, eps: layer_norm(x + plain_attention(x, x, x)[0], weight, bias, eps),
        cases=_block,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "encoder_mask",
        "the stack's mask",
        "From the 0/1 `attention_mask` (B, T), the boolean (B, 1, 1, T) that every layer gets; None when there is "
        "no `attention_mask`.",
        hint=(
            "your padding_mask of attention_mask: bool (B, 1, 1, T), True at the REAL tokens, where attending is "
            "allowed (not at the padding, as nn.MultiheadAttention's key_padding_mask has it); None when "
            "attention_mask is None."
        ),
        wrong=lambda attention_mask: (attention_mask == 0)[:, None, None, :],  # True at padding
        cases=_mask,
        minutes=5,
        difficulty="easy",
    ),
)
