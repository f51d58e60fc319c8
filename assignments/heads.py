"""Output heads: token logits for language modelling and a pooled classifier for whole sequences."""

import torch
from encoder import TransformerEncoder
from layernorm import LayerNorm
from torch import nn
from torch.nn import functional as F


def pool(hidden_states, weight, bias):
    """BERT's pooler: the first position's vector ([CLS]), through a dense layer and tanh.

    Args:
        hidden_states: (B, T, D) the encoder's output.
        weight: (D, D) and bias: (D,), the dense layer's (as nn.Linear holds them: out = h @ weight.T + bias).

    Returns:
        (B, D) = tanh(hidden_states[:, 0] @ weight.T + bias): position 0 only, not a mean or the last position.
    """
    raise NotImplementedError()


class LanguageModelHead(nn.Module):
    """BERT's prediction head: logits = decoder(layer_norm(gelu(dense(h)))).

    dense (D -> D), the exact GELU x·Φ(x) (not its tanh approximation), layer norm (eps =
    config.layer_norm_eps), decoder (D -> V, with bias).
    No dropout and no softmax: in train mode it computes what it computes in eval mode, and the logits are
    unnormalised scores. The decoder's weight (V, D) is this head's own: BERT ties it to the token embedding
    table (one matrix, "weight tying"); the kit does not, so its models hold two matrices where BERT holds one
    (loading BERT's weights copies the table into both).
    Graded against BertForMaskedLM's and BertLMHeadModel's heads, with gradients.
    """

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.layer_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states):
        """hidden_states (B, T, D) -> logits (B, T, V), unnormalised scores (no softmax)."""
        raise NotImplementedError()


class SequenceClassificationHead(nn.Module):
    """BERT's pooler and classifier: logits = classifier(dropout(tanh(pooler(h[:, 0])))).

    Reads position 0 ([CLS]) only. Dropout (p = hidden_dropout_prob) once, between the tanh and the classifier:
    not before the pooler, not after the classifier. The logits are unnormalised (no softmax).

    Graded against the pooler and classifier of BertForSequenceClassification, in eval mode and in train mode
    (where dropout goes), with gradients, and on a config unlike the others (its sizes, num_labels).
    """

    def __init__(self, config):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, hidden_states):
        """hidden_states (B, T, D) -> logits (B, num_labels), read from the first ([CLS]) position."""
        raise NotImplementedError()


class TransformerForSequenceClassification(nn.Module):
    """An encoder with a classification head: BertForSequenceClassification.

    Graded against BertForSequenceClassification(...).logits, with padding and token types; in train mode the
    dropouts are the encoder's and the head's own: the model adds none.
    """

    def __init__(self, config):
        super().__init__()
        self.encoder = TransformerEncoder(config)
        self.head = SequenceClassificationHead(config)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        """input_ids (B, T), attention_mask (B, T) 0/1 or None, token_type_ids (B, T) or None -> logits (B, num_labels).

        Both attention_mask and token_type_ids are passed on to the encoder.
        """
        raise NotImplementedError()
