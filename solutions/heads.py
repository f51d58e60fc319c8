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
    # Hint 1: which position stands for the whole sequence, and what happens to its vector: a linear map, then which squashing?
    # Hint 2: hidden_states[:, 0] is (B, D); a linear map with weight and bias (F.linear), then tanh.
    # Hint 3: return torch.tanh(F.linear(hidden_states[:, 0], weight, bias))
    ### BEGIN SOLUTION
    return torch.tanh(F.linear(hidden_states[:, 0], weight, bias))  # (B, D)
    ### END SOLUTION


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
        # Hint 1: what stands between the encoder's output and the vocabulary's logits, in which order, and does the head return probabilities?
        # Hint 2: dense, exact GELU, layer norm, then the projection to the vocabulary; no softmax.
        # Hint 3: x = F.gelu(self.dense(hidden_states)); return self.decoder(self.layer_norm(x))
        ### BEGIN SOLUTION
        return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))
        ### END SOLUTION


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
        # Hint 1: which position and which layers make the pooled vector, and where is dropout?
        # Hint 2: your pool (position 0, pooler, tanh) with self.pooler's weight and bias, then dropout, classifier.
        # Hint 3: return self.classifier(self.dropout(pool(hidden_states, self.pooler.weight, self.pooler.bias)))
        ### BEGIN SOLUTION
        pooled = torch.tanh(self.pooler(hidden_states[:, 0]))  # (B, D)
        return self.classifier(self.dropout(pooled))  # (B, num_labels)
        ### END SOLUTION


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
        # Hint 1: which two modules does the model hold, and which arguments does the encoder need?
        # Hint 2: encode (with the attention mask and token types), then classify.
        # Hint 3: hidden = self.encoder(input_ids, attention_mask, token_type_ids); return self.head(hidden)
        ### BEGIN SOLUTION
        return self.head(self.encoder(input_ids, attention_mask, token_type_ids))
        ### END SOLUTION
