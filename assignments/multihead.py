"""Multi-head attention: H attention heads of size Dh = D / H side by side, then one output projection."""

from attention import scaled_dot_product_attention
from torch import nn


def split_heads(x, num_heads):
    """One projection's D features cut into H heads of Dh = D / H, the heads made a batch dimension.

    Args:
        x: (B, T, D) a projection of every position.
        num_heads: H; it divides D.

    Returns:
        (B, H, T, Dh): [b, h, t] holds features h*Dh to (h+1)*Dh of x[b, t].
    """
    raise NotImplementedError()


def attend(q, k, v, mask=None, dropout=None):
    """Every head attends at once, with dropout on the attention probabilities as BERT has it.

    Args:
        q: (B, H, T, Dh); k, v: (B, H, S, Dh).
        mask: bool, broadcastable to (B, H, T, S); True where attending is allowed. None: nothing is blocked.
        dropout: applied to the weights before they weight the values (the module's self.dropout); None: none.

    Returns:
        context (B, H, T, Dh) = dropout(weights) @ v, and weights (B, H, T, S) as the softmax gave them, before
        dropout. scaled_dot_product_attention takes no dropout, so its weights are used and its output is not.
    """
    raise NotImplementedError()


def merge_heads(x):
    """The heads side by side again, in head order: the inverse of split_heads.

    Args:
        x: (B, H, T, Dh)

    Returns:
        (B, T, H*Dh): [b, t] holds head 0's Dh features, then head 1's, and so on.
    """
    raise NotImplementedError()


class MultiHeadAttention(nn.Module):
    """BERT's self-attention and its output projection (BertSelfAttention, then BertSelfOutput's dense): the
    residual sum, the layer norm and the dropout on the projected output belong to the layer that uses it.

    Self-attention when key_value_states is None; cross-attention (queries from hidden_states, keys and
    values from key_value_states) otherwise. Head h uses features h*Dh to (h+1)*Dh of each projection.
    Dropout (self.dropout) applies to the attention probabilities and nowhere else: context = dropout(weights) @ v
    per head, and the weights returned are those before dropout. No dropout on the output.
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
        raise NotImplementedError()
