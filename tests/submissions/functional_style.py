"""Functional style: torch.where masks, rsqrt, an nn.Sequential feed-forward, -1e4 additive masks,
embeddings by index_select, and greedy decoding with a while loop."""
import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import Tensor, nn

NEG = -1.0e4  # exp(-1e4) is 0 in float32 and float64 alike


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None):
    scores = torch.einsum("...td,...sd->...ts", query, key) * query.size(-1) ** -0.5
    if mask is not None:
        scores = scores + torch.where(mask, 0.0, NEG).to(scores.dtype)
    weights = F.softmax(scores, dim=-1)
    return weights @ value, weights


def causal_mask(size, device=None):
    i = torch.arange(size, device=device)
    return torch.where(i.unsqueeze(0) <= i.unsqueeze(1), True, False)


def padding_mask(attention_mask):
    batch, length = attention_mask.shape
    return attention_mask.bool().view(batch, 1, 1, length)


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        return torch.addcmul(self.bias, (x - mean) * torch.rsqrt(var + self.eps), self.weight)


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.heads = config.num_attention_heads
        for name in ("query", "key", "value", "output"):
            setattr(self, name, nn.Linear(config.hidden_size, config.hidden_size))
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def split(self, x):
        B, T, D = x.shape
        return x.reshape(B, T, self.heads, D // self.heads).transpose(1, 2)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        kv = key_value_states if key_value_states is not None else hidden_states
        q, k, v = self.split(self.query(hidden_states)), self.split(self.key(kv)), self.split(self.value(kv))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        out = torch.einsum("bhts,bhsd->bthd", self.dropout(weights), v).flatten(2)
        return self.output(out), weights


class FeedForward(nn.Sequential):
    def __init__(self, config):
        super().__init__(OrderedDict([
            ("linear1", nn.Linear(config.hidden_size, config.intermediate_size)),
            ("gelu", nn.GELU(approximate="none")),
            ("linear2", nn.Linear(config.intermediate_size, config.hidden_size)),
            ("dropout", nn.Dropout(config.hidden_dropout_prob)),
        ]))


def sinusoidal_positional_encoding(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    i = torch.arange(d_model, dtype=torch.float64)[None, :]
    angle = pos / torch.pow(10000.0, (i - i % 2) / d_model)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        B, T = input_ids.shape
        tokens = self.token_embeddings.weight.index_select(0, input_ids.reshape(-1)).view(B, T, -1)
        positions = self.position_embeddings.weight[:T].unsqueeze(0)
        types = self.token_type_embeddings(token_type_ids if token_type_ids is not None else input_ids.new_zeros(B, T))
        return self.dropout(self.layer_norm(tokens + positions + types))


def _post_ln(norm, x, update, dropout):
    return norm(x + dropout(update))


class TransformerEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        x = _post_ln(self.attention_norm, hidden_states, self.attention(hidden_states, mask)[0], self.dropout)
        return _post_ln(self.output_norm, x, self.feed_forward(x), nn.Identity())


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(map(lambda _: TransformerEncoderLayer(config), range(config.num_hidden_layers)))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        mask = attention_mask if attention_mask is None else padding_mask(attention_mask)
        x = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return x


class TransformerDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        D, eps = config.hidden_size, config.layer_norm_eps
        self.self_attention, self.self_attention_norm = MultiHeadAttention(config), LayerNorm(D, eps)
        self.cross_attention, self.cross_attention_norm = MultiHeadAttention(config), LayerNorm(D, eps)
        self.feed_forward, self.output_norm = FeedForward(config), LayerNorm(D, eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
        x = _post_ln(self.self_attention_norm, hidden_states, self.self_attention(hidden_states, self_mask)[0], self.dropout)
        y, _ = self.cross_attention(x, mask=cross_mask, key_value_states=encoder_hidden_states)
        x = _post_ln(self.cross_attention_norm, x, y, self.dropout)
        return self.output_norm(x + self.feed_forward(x))


class TransformerDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        self_mask = causal_mask(input_ids.size(1), input_ids.device).expand(input_ids.size(0), 1, -1, -1)
        if attention_mask is not None:
            self_mask = torch.logical_and(self_mask, padding_mask(attention_mask))
        cross_mask = padding_mask(encoder_attention_mask) if encoder_attention_mask is not None else None
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states, self_mask, cross_mask)
        return x


class LanguageModelHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states):
        h = self.dense(hidden_states)
        return self.decoder(self.layer_norm(h * 0.5 * torch.erfc(-h / math.sqrt(2.0))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        cls = hidden_states.select(1, 0)
        return self.classifier(self.dropout(F.tanh(self.pooler(cls))))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        return self.head(self.encoder(input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids))


class Seq2SeqTransformer(nn.Module):
    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        memory = self.encoder(input_ids, attention_mask=attention_mask)
        return self.lm_head(self.decoder(decoder_input_ids, memory, attention_mask=decoder_attention_mask,
                                         encoder_attention_mask=attention_mask))


def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    memory = model.encoder(input_ids, attention_mask)
    out = torch.full((len(input_ids), 1), bos_token_id, device=input_ids.device)
    live = torch.ones(len(input_ids), dtype=torch.bool, device=input_ids.device)
    step = 0
    while step < max_new_tokens and bool(live.any()):
        logits = model.lm_head(model.decoder(out, memory, encoder_attention_mask=attention_mask))
        nxt = torch.where(live, logits[:, -1].argmax(-1), pad_token_id)
        live &= nxt != eos_token_id
        out = torch.cat((out, nxt[:, None]), 1)
        step += 1
    return out
