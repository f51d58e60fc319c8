"""Layer normalisation exactly as BERT computes it."""

import torch
from torch import nn


def mean_and_variance(x):
    """The statistics of each vector over its last dimension.

    Args:
        x: (..., D)

    Returns:
        mean (..., 1) and the biased variance (..., 1): the mean of (x - mean)², dividing by D (not D - 1).
    """
    # Hint 1: over which dimension are the statistics taken, and how do you keep it so that they broadcast back? Is the variance biased or not?
    # Hint 2: .mean(dim=-1, keepdim=True) of x, then of the squared deviations (or var(unbiased=False)).
    # Hint 3: mean = x.mean(-1, keepdim=True); return mean, ((x - mean) ** 2).mean(-1, keepdim=True)
    ### BEGIN SOLUTION
    average = x.mean(-1, keepdim=True)  # (..., 1)
    return average, ((x - average) ** 2).mean(-1, keepdim=True)  # (..., 1), (..., 1)
    ### END SOLUTION


def normalise(x, mean, variance, eps):
    """Each vector shifted to mean 0 and scaled to variance 1, eps keeping the division safe.

    Args:
        x: (..., D); mean, variance: (..., 1); eps: a small positive number.

    Returns:
        (..., D) = (x - mean) / sqrt(variance + eps): eps inside the square root.
    """
    # Hint 1: where does eps go: inside the square root, or added to it?
    # Hint 2: torch.sqrt (or torch.rsqrt) of variance + eps; mean and variance broadcast over the last dimension.
    # Hint 3: return (x - mean) / torch.sqrt(variance + eps)
    ### BEGIN SOLUTION
    return (x - mean) * torch.rsqrt(variance + eps)  # (..., D)
    ### END SOLUTION


def scale_and_shift(normalised, weight, bias):
    """The learned scale and shift, one of each per feature.

    Args:
        normalised: (..., D); weight, bias: (D,).

    Returns:
        (..., D) = weight * normalised + bias.
    """
    # Hint 1: is this a matrix product, or one number per feature?
    # Hint 2: elementwise; (D,) broadcasts over the leading dimensions by itself.
    # Hint 3: return normalised * weight + bias
    ### BEGIN SOLUTION
    return normalised * weight + bias  # (..., D)
    ### END SOLUTION


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
        # Hint 1: you have written the three steps: which of the module's attributes does each take?
        # Hint 2: your steps: mean_and_variance, normalise with self.eps (inside the sqrt), scale_and_shift.
        # Hint 3: mean, variance = mean_and_variance(x); return scale_and_shift(normalise(x, mean, variance, self.eps), self.weight, self.bias)
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  # (..., 1), biased
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias
        ### END SOLUTION
