"""The position-wise feed-forward block: the same two-layer MLP applied to every position."""

from torch import nn
from torch.nn import functional as F


class FeedForward(nn.Module):
    """linear1 (D -> F), exact GELU, linear2 (F -> D), dropout."""

    def __init__(self, config):
        super().__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        """x: (B, T, D) -> (B, T, D)."""
        # Hint: dropout(linear2(gelu(linear1(x)))) with the exact, erf-based GELU (not the tanh approximation).
        ### BEGIN SOLUTION
        return self.dropout(self.linear2(F.gelu(self.linear1(x))))  # F.gelu is the exact (erf) GELU
        ### END SOLUTION
