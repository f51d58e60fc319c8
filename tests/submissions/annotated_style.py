"""In the style of The Annotated Transformer, made BERT-exact: attention takes a dropout module, blocked
scores are filled with -1e9, and layers are deep copies of one (`clones`)."""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        return torch.matmul(dropout(p_attn), value), p_attn
    return torch.matmul(p_attn, value), p_attn


def causal_mask(size, device=None):
    "Mask out subsequent positions."
    subsequent = torch.triu(torch.ones((1, size, size), device=device), diagonal=1).type(torch.uint8)
    return (subsequent == 0)[0]


def padding_mask(attention_mask):
    return (attention_mask == 1).unsqueeze(-2).unsqueeze(-2)


class LayerNorm(nn.Module):
    "Construct a layernorm module (BERT's: biased variance, eps inside the root)."

    def __init__(self, hidden_size, eps=1e-12):
        super(LayerNorm, self).__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
        return self.weight * (x - mean) / std + self.bias


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        "Take in model size and number of heads."
        super(MultiHeadAttention, self).__init__()
        assert config.hidden_size % config.num_attention_heads == 0
        self.d_k = config.hidden_size // config.num_attention_heads
        self.h = config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(p=config.attention_probs_dropout_prob)
        self.attn = None

    def forward(self, hidden_states, mask=None, key_value_states=None):
        memory = hidden_states if key_value_states is None else key_value_states
        nbatches = hidden_states.size(0)
        query, key, value = [
            lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
            for lin, x in zip((self.query, self.key, self.value), (hidden_states, memory, memory))
        ]
        x, self.attn = scaled_dot_product_attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        del query, key, value
        return self.output(x), self.attn


class FeedForward(nn.Module):
    "Implements FFN equation (with BERT's exact GELU)."

    def __init__(self, config):
        super(FeedForward, self).__init__()
        self.linear1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        return self.dropout(self.linear2(F.gelu(self.linear1(x))))


def sinusoidal_positional_encoding(max_len, d_model):
    pe = torch.zeros(max_len, d_model)
    position = torch.arange(0, max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe


class Embeddings(nn.Module):
    def __init__(self, config):
        super(Embeddings, self).__init__()
        self.token_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        positions = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.token_embeddings(input_ids) + self.position_embeddings(positions)
        if token_type_ids is not None:
            x = x + self.token_type_embeddings(token_type_ids)
        else:
            x = x + self.token_type_embeddings.weight[0]
        return self.dropout(self.layer_norm(x))


class TransformerEncoderLayer(nn.Module):
    "Encoder is made up of self-attn and feed forward, each followed by add & norm (post-LN)."

    def __init__(self, config):
        super(TransformerEncoderLayer, self).__init__()
        self.attention = MultiHeadAttention(config)
        self.feed_forward = FeedForward(config)
        self.attention_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.output_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, mask=None):
        x = self.attention_norm(hidden_states + self.dropout(self.attention(hidden_states, mask)[0]))
        return self.output_norm(x + self.feed_forward(x))


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super(TransformerEncoder, self).__init__()
        self.embeddings = Embeddings(config)
        self.layers = clones(TransformerEncoderLayer(config), config.num_hidden_layers)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        mask = padding_mask(attention_mask) if attention_mask is not None else None
        x = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            x = layer(x, mask)
        return x


class TransformerDecoderLayer(nn.Module):
    "Decoder is made of self-attn, src-attn, and feed forward."

    def __init__(self, config):
        super(TransformerDecoderLayer, self).__init__()
        self.self_attention = MultiHeadAttention(config)
        self.cross_attention = MultiHeadAttention(config)
        self.feed_forward = FeedForward(config)
        self.self_attention_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.cross_attention_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.output_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
        m = encoder_hidden_states
        x = self.self_attention_norm(hidden_states + self.dropout(self.self_attention(hidden_states, self_mask)[0]))
        x = self.cross_attention_norm(x + self.dropout(self.cross_attention(x, cross_mask, m)[0]))
        return self.output_norm(x + self.feed_forward(x))


class TransformerDecoder(nn.Module):
    def __init__(self, config):
        super(TransformerDecoder, self).__init__()
        self.embeddings = Embeddings(config)
        self.layers = clones(TransformerDecoderLayer(config), config.num_hidden_layers)

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        tgt_mask = causal_mask(input_ids.size(-1), input_ids.device)
        if attention_mask is not None:
            tgt_mask = padding_mask(attention_mask) & tgt_mask
        src_mask = padding_mask(encoder_attention_mask) if encoder_attention_mask is not None else None
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states, tgt_mask, src_mask)
        return x


class LanguageModelHead(nn.Module):
    def __init__(self, config):
        super(LanguageModelHead, self).__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states):
        return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config):
        super(SequenceClassificationHead, self).__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        return self.classifier(self.dropout(torch.tanh(self.pooler(hidden_states[:, 0]))))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config):
        super(TransformerForSequenceClassification, self).__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        return self.head(self.encoder(input_ids, attention_mask, token_type_ids))


class Seq2SeqTransformer(nn.Module):
    "A standard Encoder-Decoder architecture."

    def __init__(self, encoder_config, decoder_config):
        super(Seq2SeqTransformer, self).__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def encode(self, src, src_mask):
        return self.encoder(src, src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(tgt, memory, tgt_mask, src_mask)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        return self.lm_head(self.decode(self.encode(input_ids, attention_mask), attention_mask,
                                        decoder_input_ids, decoder_attention_mask))


def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    memory = model.encode(input_ids, attention_mask)
    ys = torch.zeros(input_ids.size(0), 1).fill_(bos_token_id).type_as(input_ids)
    ended = torch.zeros(input_ids.size(0), dtype=torch.bool, device=input_ids.device)
    for i in range(max_new_tokens):
        out = model.decode(memory, attention_mask, ys, None)
        prob = model.lm_head(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.masked_fill(ended, pad_token_id)
        ys = torch.cat([ys, next_word.unsqueeze(1)], dim=1)
        ended = ended | (next_word == eos_token_id)
        if ended.all():
            break
    return ys
