"""Multi-head attention: H attention heads of size Dh = D / H side by side, then one output projection."""

from attention import scaled_dot_product_attention
from torch import nn


class MultiHeadAttention(nn.Module):
    """BERT's attention block without its residual and layer norm.

    Self-attention when key_value_states is None; cross-attention (queries from hidden_states, keys and
    values from key_value_states) otherwise. Head h uses features h*Dh to (h+1)*Dh of each projection.
    """

    def __init__(self, config):
        super().__init__()
        if config.hidden_size % config.num_attention_heads:
            raise ValueError(
                f"hidden_size {config.hidden_size} is not divisible by num_attention_heads {config.num_attention_heads}"
            )
        self.num_heads = config.num_attention_heads  # H
        self.head_dim = config.hidden_size // config.num_attention_heads  # Dh
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        """
        Args:
            hidden_states: (B, T, D) the positions that ask (queries).
            mask: bool, (T, S), (B, 1, 1, S) or (B, 1, T, S); True where attending is allowed.
            key_value_states: (B, S, D) the positions attended to; None means hidden_states (S = T).

        Returns:
            output (B, T, D) and weights (B, H, T, S).
        """
        raise NotImplementedError('project, split D into H heads of Dh with view + transpose to (B, H, T, Dh), attend, merge back.')
