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
    # Hint 1: angle[pos, i] = pos / 10000^(2i / d_model): which two ranges of numbers make it, and how do a column and a row combine into the whole table at once?
    # Hint 2: torch.arange(max_len) as a column times 10000 ** (-torch.arange(0, d_model, 2) / d_model) as a row, computed in float64.
    # Hint 3: positions = torch.arange(max_len, dtype=torch.float64).unsqueeze(1); evens = torch.arange(0, d_model, 2, dtype=torch.float64); return (positions / 10000.0 ** (evens / d_model)).to(torch.get_default_dtype())
    ### BEGIN SOLUTION
    positions = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    evens = torch.arange(0, d_model, 2, dtype=torch.float64)  # 2i, (ceil(d_model/2),)
    return (positions / 10000.0 ** (evens / d_model)).to(torch.get_default_dtype())  # (max_len, ceil(d_model/2))
    ### END SOLUTION


def interleave_sin_cos(angles, d_model):
    """The table from its angles: sines in the even columns, cosines in the odd ones.

    Args:
        angles: (max_len, ceil(d_model / 2)), as sinusoid_angles gives them.
        d_model: the table's width.

    Returns:
        (max_len, d_model), in the angles' dtype: column 2i = sin(angles[:, i]), column 2i + 1 = cos(angles[:, i]);
        for an odd d_model the last angle has no cos column.
    """
    # Hint 1: which columns hold the sines and which the cosines? With an odd d_model, how many cosine columns are there?
    # Hint 2: an empty (max_len, d_model) table; fill columns 0::2 with the sines and 1::2 with the cosines (d_model // 2 of them).
    # Hint 3: out = angles.new_zeros(angles.shape[0], d_model); out[:, ::2] = angles.sin(); out[:, 1::2] = angles[:, : d_model // 2].cos(); return out
    ### BEGIN SOLUTION
    out = angles.new_zeros(angles.shape[0], d_model)  # (max_len, d_model)
    out[:, ::2] = angles.sin()
    out[:, 1::2] = angles[:, : d_model // 2].cos()  # an odd width has one cos column fewer
    return out
    ### END SOLUTION


def embedding_sum(input_ids, token_table, position_table, type_table, token_type_ids=None):
    """The three embeddings of every position, looked up in their tables and summed.

    Args:
        input_ids: (B, T) token ids; token_type_ids: (B, T) segment ids, all 0 when None.
        token_table: (V, D); position_table: (max positions, D); type_table: (token types, D).

    Returns:
        (B, T, D) = token_table[input_ids] + position_table[p] at positions p = 0 .. T-1 + type_table[type].
    """
    # Hint 1: a table's row i is the vector of id i: which ids pick the rows of each table, and what are the positions' ids when none are given?
    # Hint 2: index each table with a tensor of ids; the positions are torch.arange(T) on input_ids' device; no token types means type 0 everywhere.
    # Hint 3: types = torch.zeros_like(input_ids) if token_type_ids is None else token_type_ids; return token_table[input_ids] + position_table[torch.arange(T, device=input_ids.device)] + type_table[types]
    ### BEGIN SOLUTION
    length = input_ids.shape[1]
    types = torch.zeros_like(input_ids) if token_type_ids is None else token_type_ids
    index = torch.arange(length, device=input_ids.device)  # (T,)
    return token_table[input_ids] + position_table[index] + type_table[types]  # (B, T, D)
    ### END SOLUTION


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
        # Hint 1: which three vectors add up for each token, and what happens to their sum afterwards, in which order?
        # Hint 2: embedding_sum of the three tables' .weight (or the modules themselves), then layer_norm, then dropout.
        # Hint 3: return self.dropout(self.layer_norm(embedding_sum(input_ids, self.token_embeddings.weight, self.position_embeddings.weight, self.token_type_embeddings.weight, token_type_ids)))
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

    PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)), for every
    d_model, odd ones included: there are ceil(d_model/2) angles per position, and an odd table has no
    cos column for the last of them.

    Returns:
        (max_len, d_model) float tensor, in the default dtype.
    """
    # Hint 1: you have written the angles and the interleaving as steps: how do they compose?
    # Hint 2: your steps: interleave_sin_cos(sinusoid_angles(max_len, d_model), d_model).
    # Hint 3: return interleave_sin_cos(sinusoid_angles(max_len, d_model), d_model)
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
