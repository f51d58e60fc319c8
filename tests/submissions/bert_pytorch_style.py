"""In the style of codertimo's BERT-pytorch, made BERT-exact: an Attention module that takes a dropout, a
MultiHeadedAttention whose three projections run in one list comprehension, SublayerConnection holding a
norm and a dropout around a lambda, and the repository's a_2/b_2, w_1/w_2 and linear_layers names kept as
aliases of the contract's. What it does differently from BERT is changed: the weights returned are the ones
before dropout, layer norm uses the biased variance with eps inside the root, the GELU is the exact (erf) one,
dropout follows the feed-forward block's second linear, and the sublayers are post-norm."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    """
    Compute 'Scaled Dot Product Attention
    """

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))

        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)

        p_attn = F.softmax(scores, dim=-1)

        if dropout is not None:
            return torch.matmul(dropout(p_attn), value), p_attn

        return torch.matmul(p_attn, value), p_attn


_attention = Attention()


def scaled_dot_product_attention(query, key, value, mask=None):
    return _attention(query, key, value, mask=mask)


class MultiHeadAttention(nn.Module):
    """
    Take in model size and number of heads.
    """

    def __init__(self, config):
        super().__init__()
        h, d_model = config.num_attention_heads, config.hidden_size
        assert d_model % h == 0

        # We assume d_v always equals d_k
        self.d_k = d_model // h
        self.h = h

        self.query, self.key, self.value = (nn.Linear(d_model, d_model) for _ in range(3))
        self.linear_layers = nn.ModuleList([self.query, self.key, self.value])
        self.output = self.output_linear = nn.Linear(d_model, d_model)
        self.attention = Attention()

        self.dropout = nn.Dropout(p=config.attention_probs_dropout_prob)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        source = hidden_states if key_value_states is None else key_value_states
        batch_size = hidden_states.size(0)

        # 1) Do all the linear projections in batch from d_model => h x d_k
        query, key, value = [l(x).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
                             for l, x in zip(self.linear_layers, (hidden_states, source, source))]

        # 2) Apply attention on all the projected vectors in batch.
        x, attn = self.attention(query, key, value, mask=mask, dropout=self.dropout)

        # 3) "Concat" using a view and apply a final linear.
        x = x.transpose(1, 2).contiguous().view(batch_size, -1, self.h * self.d_k)

        return self.output_linear(x), attn


class LayerNorm(nn.Module):
    "Construct a layernorm module (See citation for details)."

    def __init__(self, features, eps=1e-12):
        super().__init__()
        self.weight = self.a_2 = nn.Parameter(torch.ones(features))
        self.bias = self.b_2 = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.a_2 * (x - mean) / torch.sqrt(var + self.eps) + self.b_2


class GELU(nn.Module):
    """
    Paper Section 3.4, last paragraph notice that BERT used the GELU instead of RELU
    """

    def forward(self, x):
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


class FeedForward(nn.Module):
    "Implements FFN equation."

    def __init__(self, config):
        super().__init__()
        self.linear1 = self.w_1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = self.w_2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.activation = GELU()

    def forward(self, x):
        return self.dropout(self.w_2(self.activation(self.w_1(x))))


class SublayerConnection(nn.Module):
    """
    A residual connection followed by a layer norm.
    """

    def __init__(self, norm, dropout):
        super().__init__()
        self.norm = norm
        self.dropout = dropout

    def forward(self, x, sublayer):
        "Apply residual connection to any sublayer with the same size."
        return self.norm(x + self.dropout(sublayer(x)))


class TransformerEncoderLayer(nn.Module):
    """
    Bidirectional Encoder = Transformer (self-attention)
    Transformer = MultiHead_Attention + Feed_Forward with sublayer connection
    """

    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.input_sublayer = SublayerConnection(self.attention_norm, self.dropout)
        self.output_sublayer = SublayerConnection(self.output_norm, nn.Identity())

    def forward(self, hidden_states, mask=None):
        x = self.input_sublayer(hidden_states, lambda _x: self.attention.forward(_x, mask=mask)[0])
        return self.output_sublayer(x, self.feed_forward)


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        from embeddings import Embeddings  # here, not at the top: embeddings.py imports this file's LayerNorm

        self.embeddings = Embeddings(config)
        # multi-layers transformer blocks, deep network
        self.layers = nn.ModuleList([TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        # attention masking for padded token
        # torch.ByteTensor([batch_size, 1, 1, seq_len])
        mask = None if attention_mask is None else (attention_mask > 0).unsqueeze(1).unsqueeze(1)

        x = self.embeddings(input_ids, token_type_ids)

        # running over multiple transformer blocks
        for transformer in self.layers:
            x = transformer.forward(x, mask)

        return x
