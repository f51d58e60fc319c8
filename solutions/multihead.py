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
    # Hint 1: D = H · Dh: how do you split the last dimension into two, and which two dimensions must then trade places to give (B, H, T, Dh)?
    # Hint 2: view the last dimension as (H, Dh), then swap the position and head axes with transpose(1, 2).
    # Hint 3: B, T, D = x.shape; return x.view(B, T, num_heads, D // num_heads).transpose(1, 2)
    ### BEGIN SOLUTION
    batch, length, width = x.shape
    return x.view(batch, length, num_heads, width // num_heads).transpose(1, 2)  # (B, H, T, Dh)
    ### END SOLUTION


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
    # Hint 1: BERT drops out the attention weights: which weights does the caller get back, those before dropout or after, and which ones average the values?
    # Hint 2: weights from scaled_dot_product_attention(q, k, v, mask); context from the weights after dropout, @ v.
    # Hint 3: weights = scaled_dot_product_attention(q, k, v, mask)[1]; dropped = weights if dropout is None else dropout(weights); return dropped @ v, weights
    ### BEGIN SOLUTION
    _, probabilities = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, S)
    dropped = probabilities if dropout is None else dropout(probabilities)
    return dropped @ v, probabilities  # (B, H, T, Dh), (B, H, T, S)
    ### END SOLUTION


def merge_heads(x):
    """The heads side by side again, in head order: the inverse of split_heads.

    Args:
        x: (B, H, T, Dh)

    Returns:
        (B, T, H*Dh): [b, t] holds head 0's Dh features, then head 1's, and so on.
    """
    # Hint 1: the inverse of split_heads: which dimensions trade places again, and why might the flattening refuse a view?
    # Hint 2: transpose(1, 2) back to (B, T, H, Dh), then reshape (not view: the transpose left it non-contiguous).
    # Hint 3: B, H, T, Dh = x.shape; return x.transpose(1, 2).reshape(B, T, H * Dh)
    ### BEGIN SOLUTION
    batch, heads, length, head_dim = x.shape
    return x.transpose(1, 2).reshape(batch, length, heads * head_dim)  # (B, T, D)
    ### END SOLUTION


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
        # Hint 1: where do the keys and values come from when key_value_states is given, and in which order do your steps run?
        # Hint 2: project with query, key, value (keys and values from key_value_states when given); split_heads; attend(q, k, v, mask, self.dropout); merge_heads; output.
        # Hint 3: kv = key_value_states if key_value_states is not None else hidden_states; context, weights = attend(split_heads(self.query(hidden_states), self.num_heads), split_heads(self.key(kv), self.num_heads), split_heads(self.value(kv), self.num_heads), mask, self.dropout); return self.output(merge_heads(context)), weights
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
