"""Object-oriented: a frozen dataclass config made from whatever config is given, a base class of the
student's own with shared helpers, a decorator on forward, heads split with chunk and merged with cat."""
import dataclasses
import functools
import math

import torch
from torch import nn


@dataclasses.dataclass(frozen=True)
class Sizes:
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    hidden_dropout_prob: float
    attention_probs_dropout_prob: float
    max_position_embeddings: int
    type_vocab_size: int
    layer_norm_eps: float
    num_labels: int

    @classmethod
    def of(cls, config):
        return cls(**{f.name: getattr(config, f.name) for f in dataclasses.fields(cls)})


def keeps_batch(forward):
    """Checks that a block returns one row per input row."""
    @functools.wraps(forward)
    def wrapped(self, x, *args, **kwargs):
        out = forward(self, x, *args, **kwargs)
        first = out[0] if isinstance(out, tuple) else out
        assert first.shape[0] == x.shape[0], "batch size changed"
        return out
    return wrapped


class Block(nn.Module):
    """What every residual block shares."""

    @staticmethod
    def add_norm(norm, x, update):
        return norm(x + update)


def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query.matmul(key.mT).div(math.sqrt(key.shape[-1]))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    weights = torch.exp(scores - scores.logsumexp(-1, keepdim=True))
    return weights.matmul(value), weights


def causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(1).logical_not()


def padding_mask(attention_mask):
    return attention_mask.unsqueeze(1).unsqueeze(1) > 0


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x):
        n = x.shape[-1]
        mean = x.sum(-1, keepdim=True) / n
        var = ((x - mean) ** 2).sum(-1, keepdim=True) / n
        return (x - mean) / (var + self.eps).sqrt() * self.weight + self.bias


class MultiHeadAttention(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.heads = c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.output = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout = nn.Dropout(c.attention_probs_dropout_prob)

    def split(self, x):
        return torch.stack(x.chunk(self.heads, dim=-1), dim=1)  # (B, H, T, Dh)

    @keeps_batch
    def forward(self, hidden_states, mask=None, key_value_states=None):
        source = hidden_states if key_value_states is None else key_value_states
        _, weights = scaled_dot_product_attention(self.split(self.query(hidden_states)), self.split(self.key(source)),
                                                  self.split(self.value(source)), mask)
        context = self.dropout(weights) @ self.split(self.value(source))
        return self.output(torch.cat(context.unbind(1), dim=-1)), weights


class FeedForward(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.linear1 = nn.Linear(c.hidden_size, c.intermediate_size)
        self.linear2 = nn.Linear(c.intermediate_size, c.hidden_size)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    @keeps_batch
    def forward(self, x):
        h = self.linear1(x)
        return self.dropout(self.linear2(h * (1 + torch.special.erf(h / 2 ** 0.5)) / 2))


def sinusoidal_positional_encoding(max_len, d_model):
    rows = []
    for p in range(max_len):
        rows.append([math.sin(p / 10000 ** (i / d_model)) if i % 2 == 0 else math.cos(p / 10000 ** ((i - 1) / d_model))
                     for i in range(d_model)])
    return torch.tensor(rows, dtype=torch.float64)


class Embeddings(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.token_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.layer_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        positions = torch.arange(input_ids.shape[-1], device=input_ids.device)
        summed = sum((self.token_embeddings(input_ids), self.position_embeddings(positions)[None],
                      self.token_type_embeddings(token_type_ids)))
        return self.dropout(self.layer_norm(summed))


class TransformerEncoderLayer(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    @keeps_batch
    def forward(self, hidden_states, mask=None):
        x = self.add_norm(self.attention_norm, hidden_states, self.dropout(self.attention(hidden_states, mask)[0]))
        return self.add_norm(self.output_norm, x, self.feed_forward(x))


class TransformerEncoder(Block):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(TransformerEncoderLayer(config) for _ in range(Sizes.of(config).num_hidden_layers))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        mask = None if attention_mask is None else padding_mask(attention_mask)
        return functools.reduce(lambda x, layer: layer(x, mask), self.layers, self.embeddings(input_ids, token_type_ids))


class TransformerDecoderLayer(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.self_attention = MultiHeadAttention(config)
        self.self_attention_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.cross_attention = MultiHeadAttention(config)
        self.cross_attention_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    @keeps_batch
    def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
        x = self.add_norm(self.self_attention_norm, hidden_states,
                          self.dropout(self.self_attention(hidden_states, self_mask)[0]))
        x = self.add_norm(self.cross_attention_norm, x,
                          self.dropout(self.cross_attention(x, cross_mask, encoder_hidden_states)[0]))
        return self.add_norm(self.output_norm, x, self.feed_forward(x))


class TransformerDecoder(Block):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(Sizes.of(config).num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        self_mask = causal_mask(input_ids.shape[1], input_ids.device)
        if attention_mask is not None:
            self_mask = padding_mask(attention_mask) & self_mask
        cross_mask = encoder_attention_mask if encoder_attention_mask is None else padding_mask(encoder_attention_mask)
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states, self_mask, cross_mask)
        return x


class LanguageModelHead(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.layer_norm = LayerNorm(c.hidden_size, c.layer_norm_eps)
        self.decoder = nn.Linear(c.hidden_size, c.vocab_size)

    def forward(self, hidden_states):
        return self.decoder(self.layer_norm(nn.functional.gelu(self.dense(hidden_states))))


class SequenceClassificationHead(Block):
    def __init__(self, config):
        super().__init__()
        c = Sizes.of(config)
        self.pooler = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)
        self.classifier = nn.Linear(c.hidden_size, c.num_labels)

    def forward(self, hidden_states):
        return self.classifier(self.dropout(self.pooler(hidden_states[:, :1]).tanh())).squeeze(1)


class TransformerForSequenceClassification(Block):
    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        return self.head(self.encoder(input_ids, attention_mask, token_type_ids))


class Seq2SeqTransformer(Block):
    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        memory = self.encoder(input_ids, attention_mask)
        return self.lm_head(self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask))


@torch.inference_mode()
def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    memory = model.encoder(input_ids, attention_mask)
    generated = input_ids.new_full((input_ids.shape[0], 1), bos_token_id)
    finished = input_ids.new_zeros(input_ids.shape[0]).bool()
    for _ in range(max_new_tokens):
        if finished.all():
            break
        logits = model.lm_head(model.decoder(generated, memory, None, attention_mask)[:, -1])
        token = logits.argmax(-1).masked_fill(finished, pad_token_id)
        finished = finished | token.eq(eos_token_id)
        generated = torch.cat([generated, token[:, None]], dim=-1)
    return generated
