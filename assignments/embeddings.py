"""Token, position and token-type embeddings, and the sinusoidal table of the original transformer."""

import math

import torch
from layernorm import LayerNorm
from torch import nn


class Embeddings(nn.Module):
    """BERT's input embeddings: dropout(layer_norm(token + learned position + token type))."""

    def __init__(self, config):
        super().__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        """
        Args:
            input_ids: (B, T) token ids.
            token_type_ids: (B, T) segment ids; all 0 when None.

        Returns:
            (B, T, D)
        """
        raise NotImplementedError('positions are 0..T-1 (torch.arange on input_ids.device); missing token types are all 0.')


def sinusoidal_positional_encoding(max_len, d_model):
    """The fixed table of "Attention Is All You Need".

    PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)).

    Returns:
        (max_len, d_model) float tensor.
    """
    raise NotImplementedError('angles (max_len, d_model/2) = position / 10000^(2i/d_model); sin fills even columns, cos odd ones.')
