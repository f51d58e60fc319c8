"""In the style of Hugging Face transformers' modeling_bert.py (BertSelfAttention, BertIntermediate), with the
file's own boilerplate imports: `import torch.utils.checkpoint` binds torch and leaves the sub-module
unimported, and `import os` is not run, each with a note, costing nothing. The relative imports of the library
(`from ...activations import ACT2FN`, `from ...pytorch_utils import ...`) are replaced by their one use, and the
relative-position and cache branches left out. Fitted to the contract: the boolean mask (True = attend) becomes
the additive mask get_extended_attention_mask makes (0 and the dtype's minimum), the probabilities are returned
before dropout, as (B, H, T, S), with the output projection (BertSelfOutput's dense, without its residual and
layer norm), and the feed-forward block keeps BertIntermediate as HF names it, its dense layer also under the
contract's name."""

import math
import os
import warnings
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

import torch
import torch.utils.checkpoint
from torch import nn
from torch.nn import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss

ACT2FN = {"gelu": nn.GELU()}


class BertSelfAttention(nn.Module):
    def __init__(self, config, position_embedding_type=None):
        super().__init__()
        if config.hidden_size % config.num_attention_heads != 0 and not hasattr(config, "embedding_size"):
            raise ValueError(
                f"The hidden size ({config.hidden_size}) is not a multiple of the number of attention "
                f"heads ({config.num_attention_heads})"
            )

        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size

        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)

        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)
        self.position_embedding_type = position_embedding_type or getattr(
            config, "position_embedding_type", "absolute"
        )

    def transpose_for_scores(self, x: torch.Tensor) -> torch.Tensor:
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.FloatTensor] = None,
        head_mask: Optional[torch.FloatTensor] = None,
        encoder_hidden_states: Optional[torch.FloatTensor] = None,
        output_attentions: Optional[bool] = False,
    ) -> Tuple[torch.Tensor]:
        mixed_query_layer = self.query(hidden_states)

        # If this is instantiated as a cross-attention module, the keys
        # and values come from an encoder; the attention mask needs to be
        # such that the encoder's padding tokens are not attended to.
        is_cross_attention = encoder_hidden_states is not None

        if is_cross_attention:
            key_layer = self.transpose_for_scores(self.key(encoder_hidden_states))
            value_layer = self.transpose_for_scores(self.value(encoder_hidden_states))
        else:
            key_layer = self.transpose_for_scores(self.key(hidden_states))
            value_layer = self.transpose_for_scores(self.value(hidden_states))

        query_layer = self.transpose_for_scores(mixed_query_layer)

        # Take the dot product between "query" and "key" to get the raw attention scores.
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))

        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            # Apply the attention mask is (precomputed for all layers in BertModel forward() function)
            attention_scores = attention_scores + attention_mask

        # Normalize the attention scores to probabilities.
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)

        # This is actually dropping out entire tokens to attend to, which might
        # seem a bit unusual, but is taken from the original Transformer paper.
        dropped = self.dropout(attention_probs)

        # Mask heads if we want to
        if head_mask is not None:
            dropped = dropped * head_mask

        context_layer = torch.matmul(dropped, value_layer)

        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(new_context_layer_shape)

        outputs = (context_layer, attention_probs) if output_attentions else (context_layer,)
        return outputs


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        if isinstance(config.hidden_act, str):
            self.intermediate_act_fn = ACT2FN[config.hidden_act]
        else:
            self.intermediate_act_fn = config.hidden_act

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.dense(hidden_states)
        hidden_states = self.intermediate_act_fn(hidden_states)
        return hidden_states


def get_extended_attention_mask(mask, dtype):
    """The boolean mask as the additive one BERT's layers add to their scores (0 to attend, the minimum not to)."""
    extended = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return extended.masked_fill(~mask, torch.finfo(dtype).min)


class MultiHeadAttention(BertSelfAttention):
    def __init__(self, config):
        super().__init__(config)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        additive = None if mask is None else get_extended_attention_mask(mask, hidden_states.dtype)
        context, probs = super().forward(
            hidden_states, additive, encoder_hidden_states=key_value_states, output_attentions=True
        )
        return self.output(context), probs


@dataclass
class _Activation:
    hidden_act: str = "gelu"
    hidden_size: int = 0
    intermediate_size: int = 0


class FeedForward(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.intermediate = BertIntermediate(_Activation("gelu", config.hidden_size, config.intermediate_size))
        self.linear1 = self.intermediate.dense
        self.linear2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x):
        return self.dropout(self.linear2(self.intermediate(x)))
