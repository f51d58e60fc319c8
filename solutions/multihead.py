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
        # Hint: project, split D into H heads of Dh with view + transpose to (B, H, T, Dh), attend, merge back.
        ### BEGIN SOLUTION
        source = hidden_states if key_value_states is None else key_value_states
        B, T, D = hidden_states.shape
        S = source.size(1)
        q = self.query(hidden_states).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)
        k = self.key(source).view(B, S, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, S, Dh)
        v = self.value(source).view(B, S, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, S, Dh)
        _, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, S)
        # BERT drops out the attention probabilities themselves, so the average is taken again here.
        context = self.dropout(weights) @ v  # (B, H, T, Dh)
        context = context.transpose(1, 2).reshape(B, T, D)  # heads concatenated in order
        return self.output(context), weights
        ### END SOLUTION
