"""The encoder: embeddings, then a stack of post-layer-norm blocks of self-attention and feed-forward."""

from embeddings import Embeddings
from feedforward import FeedForward
from layernorm import LayerNorm
from masking import padding_mask
from multihead import MultiHeadAttention
from torch import nn


class TransformerEncoderLayer(nn.Module):
    """One BERT layer: x = LN(x + dropout(attention(x))); x = LN(x + feed_forward(x))."""

    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        """hidden_states (B, T, D), mask bool broadcastable to (B, 1, T, T) -> (B, T, D)."""
        # Hint: post-LN, as BERT: the residual is added first and layer norm comes after each sub-block.
        ### BEGIN SOLUTION
        attended, _ = self.attention(hidden_states, mask)  # (B, T, D)
        hidden_states = self.attention_norm(hidden_states + self.dropout(attended))
        # FeedForward ends in its own dropout, so the residual needs none here.
        return self.output_norm(hidden_states + self.feed_forward(hidden_states))
        ### END SOLUTION


class TransformerEncoder(nn.Module):
    """Embeddings followed by num_hidden_layers encoder layers: BertModel without its pooler."""

    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        """
        Args:
            input_ids: (B, T) token ids.
            attention_mask: (B, T) 0/1, 1 at real tokens; None means no padding.
            token_type_ids: (B, T) segment ids, or None.

        Returns:
            (B, T, D) the last hidden state.
        """
        # Hint: embed, turn attention_mask into a boolean padding mask, run every layer in order.
        ### BEGIN SOLUTION
        mask = None if attention_mask is None else padding_mask(attention_mask)  # (B, 1, 1, T)
        hidden_states = self.embeddings(input_ids, token_type_ids)  # (B, T, D)
        for layer in self.layers:
            hidden_states = layer(hidden_states, mask)
        return hidden_states
        ### END SOLUTION
