"""The position-wise feed-forward block: the same two-layer MLP applied to every position."""

import math

import torch
from torch import nn
from torch.nn import functional as F


def gelu(x):
    """The exact GELU, x·Φ(x) with Φ the standard normal distribution function, as BERT computes it.

    Args:
        x: any shape.

    Returns:
        the same shape: x·Φ(x) itself, not the tanh approximation of it.
    """
    raise NotImplementedError()


class FeedForward(nn.Module):
    """linear1 (D -> F), the exact GELU x·Φ(x) (not its tanh approximation), linear2 (F -> D), then dropout
    (self.dropout, p = hidden_dropout_prob) on linear2's output and nowhere else. No residual: the layer that
    uses it adds that."""

    def __init__(self, config):
        super().__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        """x: (B, T, D) -> (B, T, D)."""
        raise NotImplementedError()
