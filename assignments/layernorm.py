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
    raise NotImplementedError()


def normalise(x, mean, variance, eps):
    """Each vector shifted to mean 0 and scaled to variance 1, eps keeping the division safe.

    Args:
        x: (..., D); mean, variance: (..., 1); eps: a small positive number.

    Returns:
        (..., D) = (x - mean) / sqrt(variance + eps): eps inside the square root.
    """
    raise NotImplementedError()


def scale_and_shift(normalised, weight, bias):
    """The learned scale and shift, one of each per feature.

    Args:
        normalised: (..., D); weight, bias: (D,).

    Returns:
        (..., D) = weight * normalised + bias.
    """
    raise NotImplementedError()


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
        raise NotImplementedError()
