"""The steps towards `multihead`, in the order the notebook asks them."""

from autograder.engine.authoring.builder import In, randn, random_mask
from autograder.engine.authoring.steps.step import Step, of, plain_attention


def _split(c):
    for case_id, about, B, T, H, dh in (
        ("B2-T3-H2", "x (2, 3, 8) into H=2 heads of Dh=4", 2, 3, 2, 4),
        ("B1-T5-H3", "x (1, 5, 6) into H=3 heads of Dh=2", 1, 5, 3, 2),
    ):
        g = c.generator(case_id)
        c.add(case_id, about, {"x": randn(g, B, T, H * dh)}, [In("x"), H])


def _merge(c):
    for case_id, B, T, H, dh in (("B2-T3-H2", 2, 3, 2, 4), ("B1-T5-H3", 1, 5, 3, 2)):
        g = c.generator(case_id)
        about = f"x {(B, H, T, dh)}, {H} heads of Dh={dh} side by side"
        c.add(case_id, about, {"x": randn(g, B, H, T, dh)}, [In("x")])


def _attend(c):
    for case_id, about, T, S, kind in (
        ("self", "self-attention, (B=2, H=2, T=4, Dh=3), no mask", 4, 4, None),
        ("cross-padding", "cross-attention, T=3, S=5, a (B, 1, 1, S) padding mask", 3, 5, "padding"),
    ):
        g = c.generator(case_id)
        inputs = {"q": randn(g, 2, 2, T, 3), "k": randn(g, 2, 2, S, 3), "v": randn(g, 2, 2, S, 3)}
        args = [In("q"), In("k"), In("v")]
        if kind:
            inputs["mask"] = random_mask(g, kind, 2, T, S)
            args.append(In("mask"))
        c.add(case_id, about, inputs, args, outputs=("context", "weights"))


STEPS = of(
    "multihead",
    Step(
        "split_heads",
        "split the heads",
        "(B, T, D) → (B, H, T, Dh), for one projection. The number of heads is given; Dh = D / H.",
        hint=(
            "(B, T, D) becomes (B, H, T, Dh), Dh = D // H: head h of position t holds that position's features "
            "h·Dh to (h + 1)·Dh - 1, and the head axis comes before the positions."
        ),
        wrong=lambda x, num_heads: x.view(x.size(0), num_heads, x.size(1), -1),
        cases=_split,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "attend",
        "attend",
        "Every head at once: q (B, H, T, Dh), k and v (B, H, S, Dh), and a mask that broadcasts to (B, H, T, S). "
        "The weights come from your `scaled_dot_product_attention`; the context from the weights after `dropout` "
        "(a module, or None for none), times v. Returns `(context, weights)`, the weights before dropout. The "
        "check runs it without dropout; the whole module's checks run it in train mode too.",
        hint=(
            "returns (context, weights): the weights as your scaled_dot_product_attention gives them for the mask"
            " given, and the context computed from the weights after dropout (from the weights alone when dropout"
            " is None)."
        ),
        wrong=lambda q, k, v, mask=None, dropout=None: plain_attention(q, k, v),  # the mask not passed on
        cases=_attend,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "merge_heads",
        "merge the heads",
        "(B, H, T, Dh) → (B, T, H·Dh), head 0's features first: the inverse of `split_heads`.",
        hint=(
            "the inverse of split_heads: (B, H, T, Dh) back to (B, T, H·Dh), position t's row holding its H heads"
            " in order; regrouping the numbers before the positions come back in front of the heads mixes "
            "positions into features."
        ),
        wrong=lambda x: x.reshape(x.size(0), x.size(2), -1),
        cases=_merge,
        minutes=5,
        difficulty="easy",
    ),
)
