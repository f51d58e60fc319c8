"""A typed, single-file solution: future annotations, forward references, a dataclass config defined last.

Written independently of the kit's reference. It also leans on its own API across parts: the layers
build attention with `MultiHeadAttention.from_config`, read the helper attribute `n_heads`, and
attention results are NamedTuples.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch
import torch.nn as nn

torch.manual_seed(1234)
print("typed_future: loading")


class AttentionResult(NamedTuple):
    output: torch.Tensor
    weights: torch.Tensor


def scaled_dot_product_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                                 mask: Optional[torch.Tensor] = None) -> AttentionResult:
    d_k = query.shape[-1]
    scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    weights = scores.softmax(dim=-1)
    return AttentionResult(torch.matmul(weights, value), weights)


def causal_mask(size: int, device: Optional[torch.device] = None) -> torch.Tensor:
    rows = torch.arange(size, device=device)
    return rows[:, None] >= rows[None, :]


def padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    return (attention_mask != 0).unsqueeze(1).unsqueeze(2)


class LayerNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-12) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        centred = x - x.mean(-1, keepdim=True)
        variance = (centred * centred).mean(-1, keepdim=True)
        return centred / torch.sqrt(variance + self.eps) * self.weight + self.bias


class MultiHeadAttention(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.n_heads: int = config.num_attention_heads
        self.d_head: int = config.hidden_size // config.num_attention_heads
        d = config.hidden_size
        self.query, self.key, self.value, self.output = (nn.Linear(d, d) for _ in range(4))
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    @classmethod
    def from_config(cls, config: Config) -> MultiHeadAttention:
        return cls(config)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_head).permute(0, 2, 1, 3)

    def forward(self, hidden_states: torch.Tensor, mask: Optional[torch.Tensor] = None,
                key_value_states: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        source = hidden_states if key_value_states is None else key_value_states
        q, k, v = self._heads(self.query(hidden_states)), self._heads(self.key(source)), self._heads(self.value(source))
        result = scaled_dot_product_attention(q, k, v, mask)
        context = self.dropout(result.weights) @ v
        b, _, t, _ = context.shape
        merged = context.permute(0, 2, 1, 3).contiguous().view(b, t, self.n_heads * self.d_head)
        return self.output(merged), result.weights


class FeedForward(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear1(x)
        h = 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return self.dropout(self.linear2(h))


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / (10000 ** (i / d_model))
            table[pos, i] = math.sin(angle)
            if i + 1 < d_model:
                table[pos, i + 1] = math.cos(angle)
    return table


class Embeddings(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids: torch.Tensor, token_type_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).expand_as(input_ids)
        total = self.token_embeddings(input_ids) + self.position_embeddings(positions)
        return self.dropout(self.layer_norm(total + self.token_type_embeddings(token_type_ids)))


class TransformerEncoderLayer(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.attention = MultiHeadAttention.from_config(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        assert hidden_states.shape[-1] % self.attention.n_heads == 0
        attended, _ = self.attention(hidden_states, mask)
        hidden_states = self.attention_norm(hidden_states + self.dropout(attended))
        return self.output_norm(hidden_states + self.feed_forward(hidden_states))


class TransformerEncoder(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers))

    def forward(self, input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None,
                token_type_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        mask = padding_mask(attention_mask) if attention_mask is not None else None
        h = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            h = layer(h, mask)
        return h


class TransformerDecoderLayer(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.self_attention = MultiHeadAttention.from_config(config)
        self.self_attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.cross_attention = MultiHeadAttention.from_config(config)
        self.cross_attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states: torch.Tensor, encoder_hidden_states: torch.Tensor,
                self_mask: Optional[torch.Tensor] = None, cross_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        a, _ = self.self_attention(hidden_states, self_mask)
        hidden_states = self.self_attention_norm(hidden_states + self.dropout(a))
        c, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)
        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(c))
        return self.output_norm(hidden_states + self.feed_forward(hidden_states))


class TransformerDecoder(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids: torch.Tensor, encoder_hidden_states: torch.Tensor,
                attention_mask: Optional[torch.Tensor] = None,
                encoder_attention_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        self_mask = causal_mask(input_ids.shape[1], device=input_ids.device)
        if attention_mask is not None:
            self_mask = self_mask & padding_mask(attention_mask)
        cross = padding_mask(encoder_attention_mask) if encoder_attention_mask is not None else None
        h = self.embeddings(input_ids)
        for layer in self.layers:
            h = layer(h, encoder_hidden_states, self_mask, cross)
        return h


class LanguageModelHead(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        h = self.dense(hidden_states)
        return self.decoder(self.layer_norm(h * 0.5 * (1 + torch.erf(h * 0.7071067811865476))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.dropout(torch.tanh(self.pooler(hidden_states[:, 0, :]))))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None,
                token_type_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        return self.head(self.encoder(input_ids, attention_mask, token_type_ids))


class Seq2SeqTransformer(nn.Module):
    def __init__(self, encoder_config: Config, decoder_config: Config) -> None:
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def encode(self, input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        return self.encoder(input_ids, attention_mask)

    def forward(self, input_ids: torch.Tensor, decoder_input_ids: torch.Tensor,
                attention_mask: Optional[torch.Tensor] = None,
                decoder_attention_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        memory = self.encode(input_ids, attention_mask)
        return self.lm_head(self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask))


@torch.no_grad()
def greedy_decode(model: Seq2SeqTransformer, input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None, *,
                  bos_token_id: int, eos_token_id: int, pad_token_id: int, max_new_tokens: int) -> torch.Tensor:
    memory = model.encode(input_ids, attention_mask)
    tokens = torch.full((input_ids.shape[0], 1), bos_token_id, dtype=torch.long, device=input_ids.device)
    done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
    for _ in range(max_new_tokens):
        logits = model.lm_head(model.decoder(tokens, memory, None, attention_mask))[:, -1, :]
        step = torch.where(done, torch.full_like(done, pad_token_id, dtype=torch.long), logits.argmax(-1))
        tokens = torch.cat([tokens, step[:, None]], dim=1)
        done = done | (step == eos_token_id)
        if bool(done.all()):
            break
    return tokens


@dataclass
class Config:
    vocab_size: int = 100
    hidden_size: int = 32
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    intermediate_size: int = 64
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 64
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    num_labels: int = 2


if __name__ == "__main__":
    model = TransformerEncoder(Config())
    print(model(torch.randint(0, 100, (2, 5))).shape)
