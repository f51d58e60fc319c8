"""A correct submission unlike the reference: one file, heads in a Python loop, additive masks,
hand-written softmax and GELU, sinusoidal table from Python floats. It must get full marks."""
import math

import torch
from torch import nn


def _gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def scaled_dot_product_attention(query, key, value, mask=None):
    scores = torch.matmul(query, key.transpose(-1, -2)) * query.shape[-1] ** -0.5
    if mask is not None:
        scores = scores + (~mask).to(scores.dtype) * -1e9
    scores = scores - scores.max(dim=-1, keepdim=True).values
    exp = torch.exp(scores)
    weights = exp / exp.sum(dim=-1, keepdim=True)
    return torch.matmul(weights, value), weights


def causal_mask(size, device=None):
    rows = torch.arange(size, device=device)
    return rows[:, None] >= rows[None, :]


def padding_mask(attention_mask):
    return (attention_mask == 1).unsqueeze(1).unsqueeze(2)


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))

    def forward(self, x):
        var = torch.var(x, dim=-1, unbiased=False, keepdim=True)
        return (x - x.mean(-1, keepdim=True)) * torch.rsqrt(var + self.eps) * self.weight + self.bias


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.h = config.num_attention_heads
        self.d_k = config.hidden_size // config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        kv = hidden_states if key_value_states is None else key_value_states
        q, k, v = self.query(hidden_states), self.key(kv), self.value(kv)
        head_mask = mask if mask is None or mask.dim() == 2 else mask[:, 0]  # drop the head axis
        outputs, weights = [], []
        for head in range(self.h):
            part = slice(head * self.d_k, (head + 1) * self.d_k)
            _, w = scaled_dot_product_attention(q[..., part], k[..., part], v[..., part], head_mask)
            outputs.append(self.dropout(w) @ v[..., part])  # each head's probabilities dropped out on their own
            weights.append(w)
        return self.output(torch.cat(outputs, dim=-1)), torch.stack(weights, dim=1)


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        return self.dropout(self.linear2(_gelu(self.linear1(x))))


class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        batch, length = input_ids.shape
        positions = torch.arange(length, device=input_ids.device).unsqueeze(0).expand(batch, length)
        if token_type_ids is None:
            token_type_ids = torch.zeros(batch, length, dtype=torch.long, device=input_ids.device)
        x = self.position_embeddings(positions) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.layer_norm(x + self.token_embeddings(input_ids)))


def sinusoidal_positional_encoding(max_len, d_model):
    table = [[0.0] * d_model for _ in range(max_len)]
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / 10000 ** (i / d_model)
            table[pos][i] = math.sin(angle)
            if i + 1 < d_model:
                table[pos][i + 1] = math.cos(angle)
    return torch.tensor(table)


class TransformerEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        x = self.attention_norm(self.dropout(self.attention(hidden_states, mask)[0]) + hidden_states)
        return self.output_norm(self.feed_forward(x) + x)


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        x = self.embeddings(input_ids, token_type_ids=token_type_ids)
        mask = padding_mask(attention_mask) if attention_mask is not None else None
        for i in range(len(self.layers)):
            x = self.layers[i](x, mask=mask)
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
        x = self.self_attention_norm(x + self.dropout(self.self_attention(x, mask=self_mask)[0]))
        x = self.cross_attention_norm(
            x + self.dropout(self.cross_attention(x, mask=cross_mask, key_value_states=encoder_hidden_states)[0])
        )
        return self.output_norm(x + self.feed_forward(x))


class TransformerDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList(TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers))

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        length = input_ids.shape[1]
        self_mask = causal_mask(length, input_ids.device)[None, None]  # (1, 1, T, T)
        if attention_mask is not None:
            self_mask = self_mask & padding_mask(attention_mask)
        cross = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states, self_mask, cross)
        return x


class LanguageModelHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states):
        return self.decoder(self.layer_norm(_gelu(self.dense(hidden_states))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        cls = hidden_states[:, 0, :]
        return self.classifier(self.dropout(self.pooler(cls).tanh()))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        hidden = self.encoder(input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return self.head(hidden)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        memory = self.encoder(input_ids, attention_mask=attention_mask)
        out = self.decoder(decoder_input_ids, memory, attention_mask=decoder_attention_mask, encoder_attention_mask=attention_mask)
        return self.lm_head(out)


def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    rows = [[bos_token_id] for _ in range(input_ids.shape[0])]
    done = [False] * len(rows)
    for _ in range(max_new_tokens):
        tokens = torch.tensor(rows, device=input_ids.device)
        logits = model(input_ids, tokens, attention_mask=attention_mask)  # re-encodes every step
        best = logits[:, -1, :].argmax(dim=-1).tolist()
        for i, token in enumerate(best):
            rows[i].append(pad_token_id if done[i] else token)
            done[i] = done[i] or token == eos_token_id
        if all(done):
            break
    return torch.tensor(rows, device=input_ids.device)
