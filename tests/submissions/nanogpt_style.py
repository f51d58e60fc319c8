"""nanoGPT's style: one fused QKV projection (built from the SPEC's query/key/value weights), split,
heads by view/transpose with shape comments, an additive -inf mask, argmax decoding with torch.cat."""
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


def scaled_dot_product_attention(query, key, value, mask=None):
    att = (query @ key.transpose(-2, -1)) * (1.0 / math.sqrt(key.size(-1)))  # (..., T, S)
    if mask is not None:
        att = att + torch.zeros_like(att).masked_fill(~mask, float("-inf"))
    att = F.softmax(att, dim=-1)
    return att @ value, att  # (..., T, Dv), (..., T, S)


def causal_mask(size, device=None):
    return torch.tril(torch.ones(size, size, device=device)).view(size, size) == 1


def padding_mask(attention_mask):
    return attention_mask.view(attention_mask.size(0), 1, 1, attention_mask.size(1)) == 1


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x):
        xc = x - x.mean(dim=-1, keepdim=True)
        return self.weight * xc / (xc.square().mean(dim=-1, keepdim=True) + self.eps).sqrt() + self.bias


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.num_attention_heads
        self.n_embd = config.hidden_size
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        B, T, C = hidden_states.size()  # batch, target length, n_embd
        if key_value_states is None:
            w = torch.cat([self.query.weight, self.key.weight, self.value.weight])  # (3C, C)
            b = torch.cat([self.query.bias, self.key.bias, self.value.bias])
            q, k, v = F.linear(hidden_states, w, b).split(self.n_embd, dim=2)
        else:
            q = self.query(hidden_states)
            k, v = F.linear(key_value_states, torch.cat([self.key.weight, self.value.weight]),
                            torch.cat([self.key.bias, self.value.bias])).split(self.n_embd, dim=2)
        S = k.size(1)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        v = v.view(B, S, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, S, hs)
        _, att = scaled_dot_product_attention(q, k, v, mask)
        y = self.dropout(att) @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.output(y), att


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        return self.dropout(self.linear2(F.gelu(self.linear1(x), approximate="none")))


def sinusoidal_positional_encoding(max_len, d_model):
    inv = 1.0 / (10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model))  # (d_model/2,)
    ang = torch.outer(torch.arange(max_len, dtype=torch.float64), inv)  # (max_len, d_model/2)
    return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(1)[:, :d_model]


class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        b, t = input_ids.size()
        pos = torch.arange(0, t, dtype=torch.long, device=input_ids.device)  # shape (t)
        types = torch.zeros_like(input_ids) if token_type_ids is None else token_type_ids
        x = self.token_embeddings(input_ids) + self.position_embeddings(pos) + self.token_type_embeddings(types)
        return self.dropout(self.layer_norm(x))


class TransformerEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        x = hidden_states
        x = self.attention_norm(x + self.dropout(self.attention(x, mask)[0]))
        x = self.output_norm(x + self.feed_forward(x))
        return x


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        x = self.embeddings(input_ids, token_type_ids)
        mask = None if attention_mask is None else padding_mask(attention_mask)
        for block in self.layers:
            x = block(x, mask)
        return x


class TransformerDecoderLayer(nn.Module):
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
        x = hidden_states
        x = self.self_attention_norm(x + self.dropout(self.self_attention(x, self_mask)[0]))
        x = self.cross_attention_norm(x + self.dropout(self.cross_attention(x, cross_mask, encoder_hidden_states)[0]))
        return self.output_norm(x + self.feed_forward(x))


class TransformerDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        t = input_ids.size(1)
        self_mask = causal_mask(t, input_ids.device)[None, None]  # (1, 1, t, t)
        if attention_mask is not None:
            self_mask = self_mask & padding_mask(attention_mask)
        cross_mask = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)
        x = self.embeddings(input_ids)
        for block in self.layers:
            x = block(x, encoder_hidden_states, self_mask, cross_mask)
        return x


class LanguageModelHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states):
        return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        return self.classifier(self.dropout(torch.tanh(self.pooler(hidden_states[:, 0, :]))))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        return self.head(self.encoder(input_ids, attention_mask, token_type_ids))


class Seq2SeqTransformer(nn.Module):
    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        enc = self.encoder(input_ids, attention_mask)
        return self.lm_head(self.decoder(decoder_input_ids, enc, decoder_attention_mask, attention_mask))


@torch.no_grad()
def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    enc = model.encoder(input_ids, attention_mask)
    idx = torch.full((input_ids.size(0), 1), bos_token_id, dtype=torch.long, device=input_ids.device)
    alive = torch.ones(input_ids.size(0), 1, dtype=torch.bool, device=input_ids.device)
    for _ in range(max_new_tokens):
        logits = model.lm_head(model.decoder(idx, enc, None, attention_mask))[:, -1, :]  # (B, V)
        idx_next = torch.argmax(logits, dim=-1, keepdim=True)  # (B, 1)
        idx_next = torch.where(alive, idx_next, pad_token_id)
        idx = torch.cat((idx, idx_next), dim=1)
        alive = alive & (idx_next != eos_token_id)
        if not alive.any():
            break
    return idx
