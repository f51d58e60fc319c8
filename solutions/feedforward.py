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
    # Hint 1: the exact GELU is x·Φ(x), Φ the normal distribution's CDF: which special function gives Φ, and how do you keep the input's dtype?
    # Hint 2: Φ(x) = (1 + erf(x / √2)) / 2: torch.erf, and math.sqrt(2) (a Python float keeps the input's dtype).
    # Hint 3: return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    ### BEGIN SOLUTION
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    ### END SOLUTION


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
        # Hint 1: in which order do the two linear layers, the activation and dropout come, and which GELU is graded?
        # Hint 2: dropout(linear2(gelu(linear1(x)))) with the exact GELU: your gelu step, or the library's default one (not the tanh approximation).
        # Hint 3: return self.dropout(self.linear2(gelu(self.linear1(x))))
        ### BEGIN SOLUTION
        return self.dropout(self.linear2(F.gelu(self.linear1(x))))  # F.gelu is the exact (erf) GELU
        ### END SOLUTION
