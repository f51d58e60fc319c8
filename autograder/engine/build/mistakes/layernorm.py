"""The catalog's mistakes in `layernorm`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "layernorm",
    (
        "unbiased variance",
        "the variance divides by D - 1 (unbiased); layer norm divides by D: use "
        ".mean() of the squared deviations, or var(unbiased=False).",
        [(".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)")],
    ),
    (
        "eps outside the square root",
        "eps is added after the square root; add it inside: (x - mean) / sqrt(var + eps).",
        [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
    ),
    (
        "divided by the variance",
        "x - mean is divided by the variance; divide it by the standard deviation, sqrt(var + eps).",
        [("torch.sqrt(var + self.eps)", "(var + self.eps)")],
    ),
    (
        "mean not subtracted",
        "x is divided by the standard deviation without subtracting the mean first; normalise x - mean.",
        [("self.weight * (x - mean) /", "self.weight * x /")],
    ),
    (
        "weight and bias never applied",
        "weight and bias are never applied; return weight * normalised + bias.",
        [
            (
                "self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                "(x - mean) / torch.sqrt(var + self.eps)",
            )
        ],
    ),
    (
        "eps hard-coded",
        "eps is a fixed number; use self.eps, the eps the layer norm was built with.",
        [("var + self.eps", "var + 1e-12")],
    ),
    (
        "variance computed in float32",
        "the variance is computed in float32, so float64 inputs lose precision; "
        "keep every step in the input's dtype (no .float()).",
        [
            (
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)",
                "var = (x - mean).float().pow(2).mean(dim=-1, keepdim=True).to(x.dtype)",
            )
        ],
    ),
    (
        "input detached",
        "the input is detached (.detach(), or torch.no_grad()), so no gradient reaches the layer "
        "norm's input, nor anything before it; keep x in the graph.",
        [
            (
                "        mean = x.mean(dim=-1, keepdim=True)",
                "        x = x.detach()\n        mean = x.mean(dim=-1, keepdim=True)",
            )
        ],
    ),
    (
        "mean and variance detached",
        "the mean and the variance are detached, as if they were constants; they depend "
        "on x, and the gradient must flow through them too: no .detach() on either.",
        [
            ("mean = x.mean(dim=-1, keepdim=True)  #", "mean = x.mean(dim=-1, keepdim=True).detach()  #"),
            (
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  #",
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True).detach()  #",
            ),
        ],
    ),
    (
        "weight frozen",
        "weight does not require grad (requires_grad=False), so training never changes it; leave every "
        "parameter trainable.",
        [("nn.Parameter(torch.ones(hidden_size))", "nn.Parameter(torch.ones(hidden_size), requires_grad=False)")],
    ),
)
