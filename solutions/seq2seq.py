"""The encoder-decoder model of the original transformer, built from BERT blocks, and greedy decoding."""

import torch
from decoder import TransformerDecoder
from encoder import TransformerEncoder
from heads import LanguageModelHead
from torch import nn


class Seq2SeqTransformer(nn.Module):
    """EncoderDecoderModel(encoder=BertModel, decoder=BertLMHeadModel) with the kit's own parts."""

    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = TransformerEncoder(encoder_config)
        self.decoder = TransformerDecoder(decoder_config)
        self.lm_head = LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        """
        Args:
            input_ids: (B, S) source token ids.
            decoder_input_ids: (B, T) target token ids (teacher forcing: the target shifted right).
            attention_mask: (B, S) 0/1 for the source, or None.
            decoder_attention_mask: (B, T) 0/1 for the target, or None.

        Returns:
            logits (B, T, V)
        """
        # Hint: encode the source once, decode with both masks, then the LM head.
        ### BEGIN SOLUTION
        memory = self.encoder(input_ids, attention_mask)  # (B, S, D)
        hidden_states = self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)  # (B, T, D)
        return self.lm_head(hidden_states)
        ### END SOLUTION


@torch.no_grad()
def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    """Generate by always taking the most likely next token.

    Args:
        model: a Seq2SeqTransformer.
        input_ids: (B, S) source token ids.
        attention_mask: (B, S) 0/1 for the source, or None.

    Returns:
        LongTensor (B, L), L <= 1 + max_new_tokens: bos, then the generated tokens; a row that has
        emitted eos continues with pad; generation stops once every row has emitted eos.
    """
    # Hint: encode once; loop: decode the tokens so far, argmax of the last position's logits, pad finished rows, append.
    ### BEGIN SOLUTION
    memory = model.encoder(input_ids, attention_mask)  # (B, S, D), computed once
    batch_size = input_ids.size(0)
    tokens = torch.full((batch_size, 1), bos_token_id, dtype=torch.long, device=input_ids.device)  # (B, 1)
    finished = torch.zeros(batch_size, dtype=torch.bool, device=input_ids.device)  # (B,)
    for _ in range(max_new_tokens):
        hidden_states = model.decoder(tokens, memory, encoder_attention_mask=attention_mask)  # (B, L, D)
        next_token = model.lm_head(hidden_states[:, -1]).argmax(dim=-1)  # (B,)
        next_token = next_token.masked_fill(finished, pad_token_id)
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)
        finished |= next_token == eos_token_id
        if finished.all():
            break
    return tokens
    ### END SOLUTION
