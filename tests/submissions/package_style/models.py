"""Encoder, decoder, heads and the seq2seq model, built from blocks by module name."""
import torch
import torch.nn.functional as F
from torch import nn

from blocks import Embeddings, FeedForward, MultiHeadAttention
from core import LayerNorm, causal_mask, padding_mask


class TransformerEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = MultiHeadAttention(config)
        self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.feed_forward = FeedForward(config)
        self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.width = self.attention.all_head_size

    def forward(self, hidden_states, mask=None):
        assert hidden_states.size(-1) == self.attention.all_head_size
        attention_output = self.dropout(self.attention(hidden_states, mask)[0])
        hidden_states = self.attention_norm(attention_output + hidden_states)
        return self.output_norm(self.feed_forward(hidden_states) + hidden_states)


class TransformerEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList()
        for _ in range(config.num_hidden_layers):
            self.layers.append(TransformerEncoderLayer(config))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        extended = None if attention_mask is None else padding_mask(attention_mask)
        hidden_states = self.embeddings(input_ids, token_type_ids=token_type_ids)
        for layer_module in self.layers:
            hidden_states = layer_module(hidden_states, extended)
        return hidden_states


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
        x = self.self_attention_norm(hidden_states + self.dropout(self.self_attention(hidden_states, mask=self_mask)[0]))
        attended = self.cross_attention(x, mask=cross_mask, key_value_states=encoder_hidden_states)[0]
        x = self.cross_attention_norm(x + self.dropout(attended))
        return self.output_norm(x + self.feed_forward(x))


class TransformerDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerDecoderLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        T = input_ids.shape[-1]
        self_mask = causal_mask(T, device=input_ids.device)[None, None]
        if attention_mask is not None:
            self_mask = torch.logical_and(self_mask, padding_mask(attention_mask))
        cross_mask = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states, self_mask=self_mask, cross_mask=cross_mask)
        return x


class LanguageModelHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=True)

    def forward(self, hidden_states):
        return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))


class SequenceClassificationHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        first_token_tensor = hidden_states[:, 0]
        pooled_output = self.pooler(first_token_tensor).tanh()
        return self.classifier(self.dropout(pooled_output))


class TransformerForSequenceClassification(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        sequence_output = self.encoder(input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return self.head(sequence_output)
