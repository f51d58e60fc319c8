"""The catalog's mistakes in `attention`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

SCALE = " / math.sqrt(query.size(-1))"


MISTAKES = entries(
    "attention",
    Mistake(
        "scores not scaled",
        says="the scores query @ keyᵀ are not divided by sqrt(Dh); divide them by math.sqrt(query.size(-1)) before "
        "the softmax.",
        edits=[(SCALE, "")],
    ),
    Mistake(
        "scaled by Dh instead of sqrt(Dh)",
        says="the scores are divided by Dh; divide them by its square root, math.sqrt(query.size(-1)).",
        edits=[("math.sqrt(query.size(-1))", "query.size(-1)")],
    ),
    Mistake(
        "scores multiplied by sqrt(Dh)",
        says="the scores are multiplied by sqrt(Dh); divide them by it.",
        edits=[(f"{SCALE}  #", " * math.sqrt(query.size(-1))  #")],
    ),
    Mistake(
        "softmax over the query axis",
        says="the softmax runs over the queries (dim=-2), so columns sum to 1; run it over the keys, the last "
        "dimension (dim=-1), so that each query's weights sum to 1.",
        edits=[("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")],
    ),
    Mistake(
        "mask inverted",
        says="the mask is used the wrong way round: True means the query MAY attend; fill the scores where the mask "
        "is False (~mask) with -inf.",
        edits=[("masked_fill(~mask,", "masked_fill(mask,")],
    ),
    Mistake(
        "mask ignored",
        says="the mask is never applied; fill the scores where the mask is False with -inf before the softmax.",
        edits=[("if mask is not None:", "if False:")],
    ),
    Mistake(
        "blocked scores set to 0",
        says="blocked scores are set to 0 (a 0 fill, or scores multiplied by the mask), and exp(0) still gives them "
        "weight; fill them with float('-inf') so that their weight is exactly 0.",
        edits=[('float("-inf")', "0.0")],
    ),
    Mistake(
        "mask applied after the softmax",
        says="the mask zeroes weights after the softmax, so each row no longer sums to 1; fill the scores with -inf "
        "before the softmax instead.",
        edits=[
            ('scores = scores.masked_fill(~mask, float("-inf"))', "pass"),
            (
                "weights = torch.softmax(scores, dim=-1)",
                "weights = torch.softmax(scores, dim=-1)\n"
                "    if mask is not None:\n        weights = weights.masked_fill(~mask, 0.0)",
            ),
        ],
    ),
    Mistake(
        "scores returned instead of weights",
        says="the second value returned is the scores; return the weights, softmax(scores), as the second value.",
        edits=[("return weights @ value, weights", "return weights @ value, scores")],
    ),
    Mistake(
        "output from the scores",
        says="the output multiplies the scores by the values; multiply the weights, softmax(scores), by value.",
        edits=[("return weights @ value, weights", "return scores @ value, weights")],
    ),
    Mistake(
        "scale rounded to float32",
        says="sqrt(Dh) is a float32 tensor, so float64 inputs are scaled by a rounded number; use a Python float "
        "(math.sqrt) or a tensor made with dtype=query.dtype.",
        edits=[("/ math.sqrt(query.size(-1))", "/ torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32)")],
    ),
    Mistake(
        "weights detached",
        says="the weights are detached from the graph (.detach(), or computed under torch.no_grad()), so no gradient "
        "reaches the query or the key and attention cannot learn where to look; keep softmax(scores) in the graph.",
        edits=[("weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-1).detach()")],
    ),
)
