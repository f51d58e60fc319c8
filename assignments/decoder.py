"""The decoder: masked self-attention, cross-attention to the encoder, feed-forward; each post-LN."""

from embeddings import Embeddings
from feedforward import FeedForward
from layernorm import LayerNorm
from masking import causal_mask, padding_mask
from multihead import MultiHeadAttention
from torch import nn


class TransformerDecoderLayer(nn.Module):
    """One decoder layer of BertModel(is_decoder=True, add_cross_attention=True)."""

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
            self_mask: bool, (T, T) or (B, 1, T, T); normally causal.
            cross_mask: bool, (B, 1, 1, S); hides the source's padding.

        Returns:
            (B, T, D)
        """
        raise NotImplementedError('three post-LN sub-blocks: masked self-attention, cross-attention (keys and values from the encoder), feed-forward.')


class TransformerDecoder(nn.Module):
    """Embeddings followed by num_hidden_layers decoder layers."""

    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        """
        Args:
            input_ids: (B, T) target token ids.
            encoder_hidden_states: (B, S, D) the encoder's output.
            attention_mask: (B, T) 0/1 for the target's padding, or None.
            encoder_attention_mask: (B, S) 0/1 for the source's padding, or None.

        Returns:
            (B, T, D)
        """
        raise NotImplementedError('the self-attention mask is causal AND (if given) the target padding mask; the cross mask is the source padding mask.')
