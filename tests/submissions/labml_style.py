"""In the style of labml.ai's annotated multi-head attention and feed-forward network: sequence-first tensors
([seq_len, batch_size, d_model]), a PrepareForMultiHeadAttention projection that splits the heads with a
view, scores by einsum 'ibhd,jbhd->ijbh', softmax over the keys' axis (dim 1), a mask broadcast over heads,
and its causal mask from torch.tril. Made BERT-exact and fitted to the contract: PrepareForMultiHeadAttention
is an nn.Linear (so its weight is query.weight, not query.linear.weight), inputs arrive batch-first and are
turned sequence-first inside, the weights are returned before dropout, as (B, H, T, S), and the feed-forward
network's dropout follows its second layer, with the exact GELU."""
import math

import torch
from torch import nn


class PrepareForMultiHeadAttention(nn.Linear):
    """
    This module does a linear transformation and splits the vector into given
    number of heads for multi-head attention.
    """

    def __init__(self, d_model, heads, d_k, bias=True):
        super().__init__(d_model, heads * d_k, bias=bias)
        self.heads = heads
        self.d_k = d_k

    def forward(self, x):
        # Input has shape `[seq_len, batch_size, d_model]` or `[batch_size, d_model]`.
        head_shape = x.shape[:-1]
        x = super().forward(x)
        # Split last dimension into heads
        return x.view(*head_shape, self.heads, self.d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        heads, d_model = config.num_attention_heads, config.hidden_size
        self.d_k = d_model // heads
        self.heads = heads
        self.query = PrepareForMultiHeadAttention(d_model, heads, self.d_k)
        self.key = PrepareForMultiHeadAttention(d_model, heads, self.d_k)
        self.value = PrepareForMultiHeadAttention(d_model, heads, self.d_k)
        self.softmax = nn.Softmax(dim=1)  # over the keys' axis of [seq_len_q, seq_len_k, batch, heads]
        self.output = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)
        self.scale = 1 / math.sqrt(self.d_k)

    def get_scores(self, query, key):
        # S_ijbh = sum_d Q_ibhd K_jbhd
        return torch.einsum('ibhd,jbhd->ijbh', query, key)

    def prepare_mask(self, mask, query_shape, key_shape):
        # The contract's masks are (T, S), (B, 1, 1, S) or (B, 1, T, S): [seq_len_q, seq_len_k, batch_size, heads]
        if mask.dim() == 2:
            return mask[:, :, None, None]
        return mask.permute(2, 3, 0, 1)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        query = hidden_states.transpose(0, 1)  # [seq_len, batch_size, d_model]
        key = value = (hidden_states if key_value_states is None else key_value_states).transpose(0, 1)
        seq_len, batch_size, _ = query.shape

        if mask is not None:
            mask = self.prepare_mask(mask, query.shape, key.shape)

        # These have shape `[seq_len, batch_size, heads, d_k]`.
        query = self.query(query)
        key = self.key(key)
        value = self.value(value)

        scores = self.get_scores(query, key)
        scores *= self.scale

        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))

        attn = self.softmax(scores)
        x = torch.einsum("ijbh,jbhd->ibhd", self.dropout(attn), value)

        # Concatenate multiple heads
        x = x.reshape(seq_len, batch_size, -1)
        return self.output(x).transpose(0, 1), attn.permute(2, 3, 0, 1)


class FeedForward(nn.Module):
    def __init__(self, config, bias1=True, bias2=True):
        super().__init__()
        self.linear1 = self.layer1 = nn.Linear(config.hidden_size, config.intermediate_size, bias=bias1)
        self.linear2 = self.layer2 = nn.Linear(config.intermediate_size, config.hidden_size, bias=bias2)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.activation = nn.GELU()

    def forward(self, x):
        g = self.activation(self.layer1(x))
        return self.dropout(self.layer2(g))


def subsequent_mask(seq_len):
    """
    ## Mask for masking out subsequent time steps
    """
    return torch.tril(torch.ones(seq_len, seq_len)).to(torch.bool).unsqueeze(-1)


def causal_mask(size, device=None):
    mask = subsequent_mask(size)[:, :, 0]
    return mask if device is None else mask.to(device)


def padding_mask(attention_mask):
    return (attention_mask != 0)[:, None, None, :]
