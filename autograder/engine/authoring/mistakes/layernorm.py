"""The catalog's mistakes in `layernorm`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

MISTAKES = entries(
    "layernorm",
    Mistake(
        "unbiased variance",
        says="the variance divides by D - 1 (unbiased); layer norm divides by D: use .mean() of the squared "
        "deviations, or var(unbiased=False).",
        edits=[(".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)")],
    ),
    Mistake(
        "eps outside the square root",
        says="eps is added after the square root; add it inside: (x - mean) / sqrt(var + eps).",
        edits=[("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
    ),
    Mistake(
        "divided by the variance",
        says="x - mean is divided by the variance; divide it by the standard deviation, sqrt(var + eps).",
        edits=[("torch.sqrt(var + self.eps)", "(var + self.eps)")],
    ),
    Mistake(
        "mean not subtracted",
        says="x is divided by the standard deviation without subtracting the mean first; normalise x - mean.",
        edits=[("self.weight * (x - mean) /", "self.weight * x /")],
    ),
    Mistake(
        "weight and bias never applied",
        says="weight and bias are never applied; return weight * normalised + bias.",
        edits=[
            (
                "self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                "(x - mean) / torch.sqrt(var + self.eps)",
            )
        ],
    ),
    Mistake(
        "eps hard-coded",
        says="eps is a fixed number; use self.eps, the eps the layer norm was built with.",
        edits=[("var + self.eps", "var + 1e-12")],
    ),
    Mistake(
        "variance computed in float32",
        says="the variance is computed in float32, so float64 inputs lose precision; keep every step in the input's "
        "dtype (no .float()).",
        edits=[
            (
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)",
                "var = (x - mean).float().pow(2).mean(dim=-1, keepdim=True).to(x.dtype)",
            )
        ],
    ),
    Mistake(
        "input detached",
        says="the input is detached (.detach(), or torch.no_grad()), so no gradient reaches the layer norm's input, "
        "nor anything before it; keep x in the graph.",
        edits=[
            (
                "        mean = x.mean(dim=-1, keepdim=True)",
                "        x = x.detach()\n        mean = x.mean(dim=-1, keepdim=True)",
            )
        ],
    ),
    Mistake(
        "mean and variance detached",
        says="the mean and the variance are detached, as if they were constants; they depend on x, and the gradient "
        "must flow through them too: no .detach() on either.",
        edits=[
            ("mean = x.mean(dim=-1, keepdim=True)  #", "mean = x.mean(dim=-1, keepdim=True).detach()  #"),
            (
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  #",
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True).detach()  #",
            ),
        ],
    ),
    Mistake(
        "weight frozen",
        says="weight does not require grad (requires_grad=False), so training never changes it; leave every parameter "
        "trainable.",
        edits=[("nn.Parameter(torch.ones(hidden_size))", "nn.Parameter(torch.ones(hidden_size), requires_grad=False)")],
    ),
)
