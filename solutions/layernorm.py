"""Layer normalisation exactly as BERT computes it."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    """Normalise each vector over its last dimension, then scale and shift it.

    y = weight * (x - mean) / sqrt(var + eps) + bias, with the biased variance (divide by D, not D - 1)
    and eps inside the square root, as BERT does.

    Args:
        hidden_size: D, the size of the last dimension.
        eps: added to the variance for numerical safety.
    """

    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))  # (D,)
        self.bias = nn.Parameter(torch.zeros(hidden_size))  # (D,)

    def forward(self, x):
        """x: (..., D) -> (..., D)."""
        # Hint: mean and biased variance over the last dim (keepdim=True); eps goes inside the sqrt.
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  # (..., 1), biased
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias
        ### END SOLUTION
