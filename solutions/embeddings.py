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
        # Hint: positions are 0..T-1 (torch.arange on input_ids.device); missing token types are all 0.
        ### BEGIN SOLUTION
        positions = torch.arange(input_ids.size(1), device=input_ids.device)  # (T,)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = (
            self.token_embeddings(input_ids)  # (B, T, D)
            + self.position_embeddings(positions)  # (T, D), broadcast over B
            + self.token_type_embeddings(token_type_ids)  # (B, T, D)
        )
        return self.dropout(self.layer_norm(x))
        ### END SOLUTION


def sinusoidal_positional_encoding(max_len, d_model):
    """The fixed table of "Attention Is All You Need".

    PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)).

    Returns:
        (max_len, d_model) float tensor.
    """
    # Hint: angles (max_len, d_model/2) = position / 10000^(2i/d_model); sin fills even columns, cos odd ones.
    ### BEGIN SOLUTION
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(d_model/2),)
    angles = position * torch.exp(-math.log(10000.0) * two_i / d_model)  # (max_len, ceil(d_model/2))
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])
    # Computed in float64 so that the table is exact to the last bit of the default dtype.
    return table.to(torch.get_default_dtype())
    ### END SOLUTION
