"""The decoder: masked self-attention, cross-attention to the encoder, feed-forward; each post-LN."""

from attention import scaled_dot_product_attention
from embeddings import Embeddings
from feedforward import FeedForward
from layernorm import LayerNorm
from masking import causal_mask, padding_mask
from multihead import MultiHeadAttention
from torch import nn
from torch.nn import functional as F


def self_attention_mask(length, attention_mask=None):
    """The decoder's self-attention mask, built once by the stack: causal, and the target's padding.

    Args:
        length: T, the target's length.
        attention_mask: (B, T) 0/1, 1 at the target's real tokens; or None (no padding).

    Returns:
        bool, True where query i may attend to key j: causal_mask(T), (T, T), when attention_mask is None; else
        causal_mask(T) & padding_mask(attention_mask), (B, 1, T, T): j <= i and j a real token, both at once.
    """
    # Hint 1: a position must be both earlier-or-same AND a real token to be attended: which two masks of part 1 say each, and how do two boolean masks combine into 'both'?
    # Hint 2: causal_mask(length) alone without a mask; with one, & (and, not |) padding_mask: (T, T) & (B, 1, 1, T).
    # Hint 3: causal = causal_mask(length); return causal if attention_mask is None else causal.to(attention_mask.device) & padding_mask(attention_mask)
    ### BEGIN SOLUTION
    causal = causal_mask(length)  # (T, T)
    if attention_mask is None:
        return causal
    return causal.to(attention_mask.device) & padding_mask(attention_mask)  # (B, 1, T, T)
    ### END SOLUTION


def masked_self_attention_block(x, self_mask, weight, bias, eps):
    """The layer's first sub-block with the plainest attention (one head, no projections: each position's
    query, key and value are its own vector), causal.

    Args:
        x: (B, T, D) the target so far.
        self_mask: bool (T, T) or (B, 1, T, T), as self_attention_mask gives it; True where attending is allowed.
        weight, bias: (D,) the layer norm's; eps: its epsilon.

    Returns:
        (B, T, D) = LN(x + softmax(x xᵀ / sqrt(D), blocked keys removed) x), the residual added before the norm.
    """
    # Hint 1: the same sequence asks and answers: what are the query, key and value, how do you give them a head dimension, and where does the residual join before the norm?
    # Hint 2: x.unsqueeze(1) as query, key and value of scaled_dot_product_attention with self_mask; F.layer_norm(x + it).
    # Hint 3: head = x.unsqueeze(1); context, _ = scaled_dot_product_attention(head, head, head, self_mask); return F.layer_norm(x + context.squeeze(1), x.shape[-1:], weight, bias, eps)
    ### BEGIN SOLUTION
    head = x.unsqueeze(1)  # (B, 1, T, D): one head
    context, _ = scaled_dot_product_attention(head, head, head, self_mask)  # (B, 1, T, D)
    return F.layer_norm(x + context.squeeze(1), x.shape[-1:], weight, bias, eps)  # (B, T, D)
    ### END SOLUTION


def cross_attention_block(x, memory, cross_mask, weight, bias, eps):
    """The layer's second sub-block with the plainest attention: the target's positions ask (queries), the
    encoder's output, the memory, answers (keys and values).

    Args:
        x: (B, T, D) the target; memory: (B, S, D) the encoder's output.
        cross_mask: None, or bool (B, 1, 1, S), True at the source's real tokens; never causal.
        weight, bias: (D,) the layer norm's; eps: its epsilon.

    Returns:
        (B, T, D) = LN(x + softmax(x memoryᵀ / sqrt(D), blocked keys removed) memory): T rows, each a mixture of
        the S source positions, added to x (not to the memory) before the norm.
    """
    # Hint 1: in cross-attention, which sequence asks (the queries) and which answers (the keys and values)? Which mask blocks the source's padding?
    # Hint 2: query x.unsqueeze(1), keys and values memory.unsqueeze(1), with cross_mask; then F.layer_norm(x + context).
    # Hint 3: source = memory.unsqueeze(1); context, _ = scaled_dot_product_attention(x.unsqueeze(1), source, source, cross_mask); return F.layer_norm(x + context.squeeze(1), x.shape[-1:], weight, bias, eps)
    ### BEGIN SOLUTION
    source = memory.unsqueeze(1)  # (B, 1, S, D): one head
    context, _ = scaled_dot_product_attention(x.unsqueeze(1), source, source, cross_mask)  # (B, 1, T, D)
    return F.layer_norm(x + context.squeeze(1), x.shape[-1:], weight, bias, eps)  # (B, T, D)
    ### END SOLUTION


class TransformerDecoderLayer(nn.Module):
    """One decoder layer of BertModel(is_decoder=True, add_cross_attention=True): three post-LN sub-blocks.

    Each sub-block is x = norm(x + dropout(sublayer(x))), in this order, with memory = encoder_hidden_states:

        x = self_attention_norm(x + dropout(self_attention(x, self_mask)))       # masked self-attention
        x = cross_attention_norm(x + dropout(cross_attention(x, cross_mask, key_value_states=memory)))
        x = output_norm(x + feed_forward(x))                                     # feed-forward

    x stays (B, T, D) throughout. Cross-attention takes its queries from x, its keys and values from memory
    (B, S, D); its weights are (B, H, T, S). Dropout: self.dropout, once on each attention's output before its
    residual sum, and nowhere else; the feed-forward's dropout is the last step of feed_forward itself, so its
    residual sum adds none. The three layer norms use config.layer_norm_eps.

    Graded: the output in eval mode, and in train mode (where dropout goes), with the gradients of both inputs
    and of every parameter; the inputs must come back unchanged (no in-place operation on them).
    """

    def __init__(self, config):
        super().__init__()
        self.self_attention = MultiHeadAttention(config)
        self.self_attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.cross_attention = MultiHeadAttention(config)
        self.cross_attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
        """
        Args:
            hidden_states: (B, T, D) the target side.
            encoder_hidden_states: (B, S, D) the encoder's output.
            self_mask: bool, True where attending is allowed: (T, T) (causal), (B, 1, T, T) (causal and the
                target's padding) or None. Passed to self_attention as it is.
            cross_mask: bool (B, 1, 1, S), hiding the source's padding, or None. Passed to cross_attention as it
                is; never causal, since every target position may read the whole source.

        Returns:
            (B, T, D)
        """
        # Hint 1: which three sub-blocks does a decoder layer have, in which order, where do the keys and values of the second come from, and where does each residual join its norm?
        # Hint 2: three post-LN sub-blocks: masked self-attention, cross-attention (keys and values from the encoder), feed-forward; dropout on each attention's output before its residual.
        # Hint 3: h = self_attention_norm(h + dropout(self_attention(h, self_mask)[0])); h = cross_attention_norm(h + dropout(cross_attention(h, cross_mask, key_value_states=memory)[0])); return output_norm(h + feed_forward(h))
        ### BEGIN SOLUTION
        attended, _ = self.self_attention(hidden_states, self_mask)
        hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))
        attended, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)
        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(attended))
        return self.output_norm(hidden_states + self.feed_forward(hidden_states))
        ### END SOLUTION


class TransformerDecoder(nn.Module):
    """Embeddings followed by num_hidden_layers decoder layers: BertModel built with is_decoder=True and
    add_cross_attention=True.

    Graded against that model's last_hidden_state at every position, padded ones included, with and without
    masks; and causal: changing a target token never changes the output at an earlier position. In train mode
    the dropouts are the embeddings' and the layers' own: the decoder adds none.
    """

    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        """
        Args:
            input_ids: (B, T) target token ids. A decoder takes no token types: self.embeddings(input_ids), so
                every token is of type 0.
            encoder_hidden_states: (B, S, D) the encoder's output, read by every layer's cross-attention.
            attention_mask: (B, T) 0/1 for the target's padding, or None.
            encoder_attention_mask: (B, S) 0/1 for the source's padding, or None.

        The masks, built once and given to every layer:
            self mask: causal_mask(T), (T, T), when attention_mask is None (causal only, no padding mask);
                causal_mask(T) & padding_mask(attention_mask), (B, 1, T, T), when it is given.
            cross mask: padding_mask(encoder_attention_mask), (B, 1, 1, S); None when it is None.

        Returns:
            (B, T, D)
        """
        # Hint 1: two masks are needed here, one for the decoder's own tokens and one for the source's: which of your functions builds each, and what is each when its padding mask is None?
        # Hint 2: self mask = your self_attention_mask(T, attention_mask); cross mask = padding_mask(encoder_attention_mask) or None; embeddings(input_ids) without token types.
        # Hint 3: self_mask = self_attention_mask(T, attention_mask); cross_mask = None or padding_mask(encoder_attention_mask); h = self.embeddings(input_ids); for layer in self.layers: h = layer(h, encoder_hidden_states, self_mask, cross_mask)
        ### BEGIN SOLUTION
        self_mask = causal_mask(input_ids.size(1), device=input_ids.device)  # (T, T)
        if attention_mask is not None:
            self_mask = self_mask & padding_mask(attention_mask)  # (B, 1, T, T)
        cross_mask = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)  # (B, 1, 1, S)
        hidden_states = self.embeddings(input_ids)  # (B, T, D)
        for layer in self.layers:
            hidden_states = layer(hidden_states, encoder_hidden_states, self_mask, cross_mask)
        return hidden_states
        ### END SOLUTION
