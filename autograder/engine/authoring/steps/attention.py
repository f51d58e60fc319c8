"""The steps towards `attention`, in the order the notebook asks them."""

from autograder.engine.authoring.builder import In, randn, random_mask
from autograder.engine.authoring.steps.step import Step, of


def _scores(c):
    for case_id, about, lead, T, S, dh in (
        ("3d", "3-D (B=2), T=3 queries, S=5 keys, Dh=4", (2,), 3, 5, 4),
        ("4d", "4-D (B=2, H=2), T=4, S=3, Dh=9", (2, 2), 4, 3, 9),
    ):
        g = c.generator(case_id)
        inputs = {"query": randn(g, *lead, T, dh), "key": randn(g, *lead, S, dh)}
        c.add(case_id, about, inputs, [In("query"), In("key")])


def _masked(c):
    for case_id, about, lead, T, S, kind in (
        ("TxS-mask", "scores (2, 3, 5), a (T, S) mask", (2,), 3, 5, "TS"),
        ("padding-mask", "scores (2, 2, 3, 5), a (B, 1, 1, S) padding mask", (2, 2), 3, 5, "padding"),
        ("causal-mask", "scores (1, 2, 4, 4), a causal (T, T) mask", (1, 2), 4, 4, "causal"),
    ):
        g = c.generator(case_id)
        inputs = {"scores": randn(g, *lead, T, S, scale=2.0), "mask": random_mask(g, kind, lead[0], T, S)}
        c.add(case_id, about, inputs, [In("scores"), In("mask")])
    g = c.generator("no-mask")
    c.add("no-mask", "scores (2, 3, 5), mask None", {"scores": randn(g, 2, 3, 5)}, [In("scores")])


def _weights(c):
    for case_id, about, lead, T, S, kind in (
        ("T-ne-S", "scores (2, 3, 5), no blocked position", (2,), 3, 5, None),
        ("blocked", "scores (2, 2, 4, 6) with -inf where a mask blocks", (2, 2), 4, 6, "full"),
    ):
        g = c.generator(case_id)
        scores = randn(g, *lead, T, S, scale=2.0)
        if kind:
            scores = scores.masked_fill(~random_mask(g, kind, lead[0], T, S), float("-inf"))
        c.add(case_id, about, {"scores": scores}, [In("scores")])


STEPS = of(
    "attention",
    Step(
        "attention_scores",
        "scores and scale",
        "Every query against every key at once: query (..., T, Dh) times key transposed, (..., Dh, S), is "
        "(..., T, S), and entry [t, s] is query t · key s. Only the key's last two dimensions trade places, "
        "so that the batch dimensions stay where they are.",
        hint=(
            "scores[..., t, s] = query[..., t, :] · key[..., s, :] / sqrt(Dh), with Dh the size of query's last "
            "dimension: (B, H, T, Dh) and (B, H, S, Dh) give (B, H, T, S), every leading dimension kept as it is."
        ),
        wrong=lambda query, key: query @ key.transpose(-2, -1) / query.size(-1),
        cases=_scores,
        minutes=5,
        difficulty="easy",
    ),
    Step(
        "masked_scores",
        "the mask",
        'The mask is boolean and **True means "may attend"**. It is (T, S), or (B, 1, 1, S), or (B, 1, T, S): '
        "anything that broadcasts to the scores. A blocked position must end with weight exactly 0, so its score "
        "becomes `-inf` (not 0: e^0 = 1 still counts), whose e^-inf is exactly 0 in every dtype. The step's check "
        "asks for -inf itself.",
        hint=(
            "where the mask is False a score must be minus infinity exactly (not 0, nor a large negative number),"
            " and every other score unchanged; with mask None, the scores unchanged."
        ),
        wrong=lambda scores, mask=None: scores if mask is None else scores.masked_fill(~mask, 0.0),
        cases=_masked,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "attention_weights",
        "the softmax",
        "Over the keys, the last dimension, so that each query's row of weights sums to 1.",
        hint=(
            "each query's row of weights is a distribution over the keys, the LAST dimension: positive, summing "
            "to 1; probabilities, not their logarithms."
        ),
        wrong=lambda scores: scores.softmax(dim=-2),
        cases=_weights,
        minutes=5,
        difficulty="easy",
    ),
)
