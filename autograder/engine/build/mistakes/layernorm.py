"""The catalog's mistakes in `layernorm`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "layernorm",
    (
        "unbiased variance",
        [(".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)")],
    ),
    (
        "eps outside the square root",
        [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
    ),
    (
        "divided by the variance",
        [("torch.sqrt(var + self.eps)", "(var + self.eps)")],
    ),
    (
        "mean not subtracted",
        [("self.weight * (x - mean) /", "self.weight * x /")],
    ),
    (
        "weight and bias never applied",
        [
            (
                "self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                "(x - mean) / torch.sqrt(var + self.eps)",
            )
        ],
    ),
    (
        "eps hard-coded",
        [("var + self.eps", "var + 1e-12")],
    ),
    (
        "variance computed in float32",
        [
            (
                "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)",
                "var = (x - mean).float().pow(2).mean(dim=-1, keepdim=True).to(x.dtype)",
            )
        ],
    ),
    (
        "input detached",
        [
            (
                "        mean = x.mean(dim=-1, keepdim=True)",
                "        x = x.detach()\n        mean = x.mean(dim=-1, keepdim=True)",
            )
        ],
    ),
    (
        "mean and variance detached",
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
        [("nn.Parameter(torch.ones(hidden_size))", "nn.Parameter(torch.ones(hidden_size), requires_grad=False)")],
    ),
)
