"""Token, position and token-type embeddings, and the sinusoidal table of the original transformer."""

import math

import torch
from layernorm import LayerNorm
from torch import nn


def sinusoid_angles(max_len, d_model):
    """The angle of every position at every frequency of the sinusoidal table.

    Args:
        max_len: positions p = 0 .. max_len - 1.
        d_model: the table's width; odd widths too.

    Returns:
        (max_len, ceil(d_model / 2)) float: angle[p, i] = p / 10000^(2i / d_model), one column per pair of
        columns 2i, 2i + 1 of the table (an odd width has a last pair with one column).
    """
    raise NotImplementedError()


def interleave_sin_cos(angles, d_model):
    """The table from its angles: sines in the even columns, cosines in the odd ones.

    Args:
        angles: (max_len, ceil(d_model / 2)), as sinusoid_angles gives them.
        d_model: the table's width.

    Returns:
        (max_len, d_model), in the angles' dtype: column 2i = sin(angles[:, i]), column 2i + 1 = cos(angles[:, i]);
        for an odd d_model the last angle has no cos column.
    """
    raise NotImplementedError()


def embedding_sum(input_ids, token_table, position_table, type_table, token_type_ids=None):
    """The three embeddings of every position, looked up in their tables and summed.

    Args:
        input_ids: (B, T) token ids; token_type_ids: (B, T) segment ids, all 0 when None.
        token_table: (V, D); position_table: (max positions, D); type_table: (token types, D).

    Returns:
        (B, T, D) = token_table[input_ids] + position_table[p] at positions p = 0 .. T-1 + type_table[type].
    """
    raise NotImplementedError()


class Embeddings(nn.Module):
    """BERT's input embeddings: dropout(layer_norm(token + learned position + token type)).

    Positions are 0 .. T-1; token types are all 0 when none are given. Dropout (self.dropout, p =
    hidden_dropout_prob) applies once, after the layer norm, and nowhere else.
    """

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
        raise NotImplementedError()


def sinusoidal_positional_encoding(max_len, d_model):
    """The fixed table of "Attention Is All You Need".

    PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)), for every
    d_model, odd ones included: there are ceil(d_model/2) angles per position, and an odd table has no
    cos column for the last of them.

    Returns:
        (max_len, d_model) float tensor, in the default dtype.
    """
    raise NotImplementedError()
