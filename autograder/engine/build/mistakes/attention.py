"""The catalog's mistakes in `attention`."""

from autograder.engine.build.mistakes.mistake import entries

SCALE = " / math.sqrt(query.size(-1))"


MISTAKES = entries(
    "attention",
    (
        "scores not scaled",
        [(SCALE, "")],
    ),
    (
        "scaled by Dh instead of sqrt(Dh)",
        [("math.sqrt(query.size(-1))", "query.size(-1)")],
    ),
    (
        "scores multiplied by sqrt(Dh)",
        [(f"{SCALE}  #", " * math.sqrt(query.size(-1))  #")],
    ),
    (
        "softmax over the query axis",
        [("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")],
    ),
    (
        "mask inverted",
        [("masked_fill(~mask,", "masked_fill(mask,")],
    ),
    (
        "mask ignored",
        [("if mask is not None:", "if False:")],
    ),
    (
        "blocked scores set to 0",
        [('float("-inf")', "0.0")],
    ),
    (
        "mask applied after the softmax",
        [
            ('scores = scores.masked_fill(~mask, float("-inf"))', "pass"),
            (
                "weights = torch.softmax(scores, dim=-1)",
                "weights = torch.softmax(scores, dim=-1)\n"
                "    if mask is not None:\n        weights = weights.masked_fill(~mask, 0.0)",
            ),
        ],
    ),
    (
        "scores returned instead of weights",
        [("return weights @ value, weights", "return weights @ value, scores")],
    ),
    (
        "output from the scores",
        [("return weights @ value, weights", "return scores @ value, weights")],
    ),
    (
        "scale rounded to float32",
        [("/ math.sqrt(query.size(-1))", "/ torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32)")],
    ),
    (
        "weights detached",
        [("weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-1).detach()")],
    ),
)
