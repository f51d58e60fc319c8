"""The encoder: embeddings, then a stack of post-layer-norm blocks of self-attention and feed-forward."""

from attention import scaled_dot_product_attention
from embeddings import Embeddings
from feedforward import FeedForward
from layernorm import LayerNorm
from masking import padding_mask
from multihead import MultiHeadAttention
from torch import nn
from torch.nn import functional as F


def add_and_norm(x, sublayer_output, weight, bias, eps):
    """The end of a post-LN sub-block: the residual sum first, then its layer norm.

    Args:
        x: (B, T, D) the sub-block's input.
        sublayer_output: (B, T, D) what its sub-layer made of x (in the layer, the attention's output after
            self.dropout, or the feed-forward block's output).
        weight, bias: (D,) the layer norm's scale and shift; eps: its epsilon.

    Returns:
        (B, T, D) = LN(x + sublayer_output): the mean and biased variance of the sum over its last dimension, eps
        inside the square root, then weight and bias. Not x + LN(sublayer_output), and not LN(x) + sublayer_output.
    """
    # Hint 1: post-LN: what is normalised, the sublayer's output alone or its sum with the input? Over which dimension?
    # Hint 2: add first, then normalise the sum over D with the given weight, bias and eps (F.layer_norm).
    # Hint 3: return F.layer_norm(x + sublayer_output, x.shape[-1:], weight, bias, eps)
    ### BEGIN SOLUTION
    return F.layer_norm(x + sublayer_output, x.shape[-1:], weight, bias, eps)  # (B, T, D)
    ### END SOLUTION


def self_attention_block(x, mask, weight, bias, eps):
    """The layer's first sub-block with the plainest attention: one head and no projections, so that each
    position's query, key and value are its own vector.

    Args:
        x: (B, T, D).
        mask: None (attend everywhere), or bool broadcastable to (B, 1, T, T), True where attending is allowed;
            the encoder's padding mask is (B, 1, 1, T).
        weight, bias: (D,) the layer norm's; eps: its epsilon.

    Returns:
        (B, T, D) = LN(x + softmax(x xᵀ / sqrt(D), blocked keys removed) x): your add_and_norm of x and what
        scaled_dot_product_attention(x, x, x, mask) gives, on a head axis of size 1.
    """
    # Hint 1: in self-attention the same sequence asks and answers: what are the query, key and value, and which of your steps closes the block?
    # Hint 2: x.unsqueeze(1), (B, 1, T, D), is query, key and value (one head); pass the mask; squeeze(1) the context; then add_and_norm.
    # Hint 3: head = x.unsqueeze(1); context, _ = scaled_dot_product_attention(head, head, head, mask); return add_and_norm(x, context.squeeze(1), weight, bias, eps)
    ### BEGIN SOLUTION
    head = x.unsqueeze(1)  # (B, 1, T, D)
    context, _ = scaled_dot_product_attention(head, head, head, mask)  # (B, 1, T, D)
    return add_and_norm(x, context.squeeze(1), weight, bias, eps)  # (B, T, D)
    ### END SOLUTION


def encoder_mask(attention_mask):
    """The stack's mask, built once from the 0/1 attention_mask and given to every layer.

    Args:
        attention_mask: (B, T) 0/1, 1 at real tokens and 0 at padding; or None (no padding at all).

    Returns:
        bool (B, 1, 1, T), True at the real tokens: one row of keys that broadcasts over the heads and over the T
        queries, so that every query (a padded one too) attends to the real tokens only. None when attention_mask
        is None.
    """
    # Hint 1: which function of part 1 turns a (B, T) attention mask into one that broadcasts over heads and queries? What does no mask mean?
    # Hint 2: padding_mask from part 1 gives (B, 1, 1, T); None stays None.
    # Hint 3: return None if attention_mask is None else padding_mask(attention_mask)
    ### BEGIN SOLUTION
    return None if attention_mask is None else padding_mask(attention_mask)  # (B, 1, 1, T)
    ### END SOLUTION


class TransformerEncoderLayer(nn.Module):
    """One BERT layer, post-LN (the residual sum first, then its layer norm), in this order:

        x = attention_norm(x + dropout(attention(x, mask)))    # (B, T, D)
        x = output_norm(x + feed_forward(x))                   # (B, T, D)

    Dropout: self.dropout, once, on the attention block's output before the residual sum; nowhere else.
    self.attention returns its output projection with no dropout on it (its own dropout acts on the attention
    probabilities inside it), so this one is the only dropout it gets; feed_forward ends in its own dropout, so
    its residual sum adds none. Both layer norms use config.layer_norm_eps.

    Graded: the output in eval mode, and in train mode (where dropout goes), with the gradients of the input and
    of every parameter; the inputs must come back unchanged (no in-place operation on hidden_states).
    """

    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        """
        Args:
            hidden_states: (B, T, D).
            mask: None (attend everywhere), or bool broadcastable to (B, 1, T, T), True where attending is
                allowed; the encoder gives padding_mask(attention_mask), (B, 1, 1, T). Passed to self.attention as
                it is.

        Returns:
            (B, T, D)
        """
        # Hint 1: BERT is post-LN: where does each residual join, where is each norm, and which output is dropped out before its residual (the feed-forward drops out its own)?
        # Hint 2: post-LN, as BERT: add_and_norm after each sub-block; self.dropout on the attention's output only.
        # Hint 3: attended, _ = self.attention(h, mask); h = self.attention_norm(h + self.dropout(attended)); return self.output_norm(h + self.feed_forward(h))
        ### BEGIN SOLUTION
        attended, _ = self.attention(hidden_states, mask)  # (B, T, D)
        hidden_states = self.attention_norm(hidden_states + self.dropout(attended))
        # FeedForward ends in its own dropout, so the residual needs none here.
        return self.output_norm(hidden_states + self.feed_forward(hidden_states))
        ### END SOLUTION


class TransformerEncoder(nn.Module):
    """Embeddings followed by num_hidden_layers encoder layers: BertModel without its pooler.

    Graded against BertModel(...).last_hidden_state at every position, padded ones included, with right or left
    padding, token types, no mask at all, and T up to max_position_embeddings; no real position's output may
    depend on the tokens at padded positions. In train mode the dropouts are the embeddings' and the layers'
    own: the encoder adds none.
    """

    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        """
        Args:
            input_ids: (B, T) token ids.
            attention_mask: (B, T) 0/1, 1 at real tokens; None means no padding (no mask at all). Turned into
                padding_mask(attention_mask), (B, 1, 1, T), once, and given to every layer.
            token_type_ids: (B, T) segment ids, or None (all type 0); passed on to the embeddings.

        Returns:
            (B, T, D) the last hidden state.
        """
        # Hint 1: what goes into the first layer, and is the mask the same for every layer?
        # Hint 2: embed (token types too), encoder_mask(attention_mask) once, then every layer in order with that mask.
        # Hint 3: mask = encoder_mask(attention_mask); h = self.embeddings(input_ids, token_type_ids=token_type_ids); then each layer of self.layers in turn: h = layer(h, mask); return h
        ### BEGIN SOLUTION
        mask = None if attention_mask is None else padding_mask(attention_mask)  # (B, 1, 1, T)
        hidden_states = self.embeddings(input_ids, token_type_ids)  # (B, T, D)
        for layer in self.layers:
            hidden_states = layer(hidden_states, mask)
        return hidden_states
        ### END SOLUTION
