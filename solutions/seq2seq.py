"""The encoder-decoder model of the original transformer, built from BERT blocks, and greedy decoding."""

import torch
from decoder import TransformerDecoder
from encoder import TransformerEncoder
from heads import LanguageModelHead
from torch import nn


class Seq2SeqTransformer(nn.Module):
    """EncoderDecoderModel(encoder=BertModel, decoder=BertLMHeadModel) with the kit's own parts.

    The encoder is built from encoder_config; the decoder and lm_head from decoder_config, whose vocabulary and
    number of layers may differ from the encoder's (the graders' do). In train mode the dropouts are the
    encoder's and the decoder's own: the model adds none.
    """

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
            attention_mask: (B, S) 0/1 for the source, or None: the encoder's mask and, again, the decoder's
                cross-attention mask (its encoder_attention_mask).
            decoder_attention_mask: (B, T) 0/1 for the target, or None: the decoder's own attention_mask.

        Returns:
            logits (B, T, V), V = decoder_config.vocab_size: encoder, decoder, then lm_head on every position.
            Causal in the target: changing a target token never changes the logits at an earlier position.
        """
        # Hint 1: which mask goes to the encoder, and which two masks to the decoder?
        # Hint 2: encode the source once, decode with both masks (the target's own, and the source's for cross-attention), then the LM head.
        # Hint 3: memory = self.encoder(input_ids, attention_mask); return self.lm_head(self.decoder(decoder_input_ids, memory, attention_mask=decoder_attention_mask, encoder_attention_mask=attention_mask))
        ### BEGIN SOLUTION
        memory = self.encoder(input_ids, attention_mask)  # (B, S, D)
        hidden_states = self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)  # (B, T, D)
        return self.lm_head(hidden_states)
        ### END SOLUTION


def next_tokens(logits):
    """The greedy choice, every row's most likely next token, read at the last position.

    Args:
        logits: (B, L, V) the LM head's scores at each of the L positions so far; position l scores the token
            that follows token l, so only the last position scores a token that is not there yet.

    Returns:
        LongTensor (B,): the arg-max over the vocabulary V of the last position's logits.
    """
    # Hint 1: which position's logits predict the next token, and over which dimension is the best one chosen?
    # Hint 2: the last position is logits[:, -1], (B, V); then argmax over the vocabulary, the last dimension.
    # Hint 3: return logits[:, -1].argmax(dim=-1)
    ### BEGIN SOLUTION
    last = logits[:, -1]  # (B, V)
    return last.argmax(dim=-1)  # (B,)
    ### END SOLUTION


def finish_rows(next_token, finished, eos_token_id, pad_token_id):
    """Finished rows. A row that emitted EOS at an earlier step gets PAD, whatever the model proposes;
    a row that emits EOS now keeps its EOS and is finished from now on.

    Args:
        next_token: LongTensor (B,) the proposed next tokens (next_tokens' result).
        finished: BoolTensor (B,) True for the rows that emitted EOS at an earlier step.

    Returns:
        (next_token, finished): LongTensor (B,), the proposals with pad_token_id in every row finished before
        this step; BoolTensor (B,), the rows finished after it (those finished before, and those that emit EOS).
    """
    # Hint 1: a row that had finished before this step gets which token? And which rows are finished after it?
    # Hint 2: masked_fill with the rows finished BEFORE this step; then those rows or (|) the rows whose token is EOS.
    # Hint 3: appended = next_token.masked_fill(finished, pad_token_id); return appended, finished | (appended == eos_token_id)
    ### BEGIN SOLUTION
    appended = next_token.masked_fill(finished, pad_token_id)  # (B,)
    return appended, finished | (appended == eos_token_id)
    ### END SOLUTION


def decode_step(tokens, logits, finished, eos_token_id, pad_token_id):
    """One step of the decoding loop, given the model's logits on the tokens so far.

    Args:
        tokens: LongTensor (B, L) the tokens so far, BOS first.
        logits: (B, L, V) the LM head's scores at each of the L positions.
        finished: BoolTensor (B,) True for the rows that emitted EOS at an earlier step.

    Returns:
        (tokens, finished): LongTensor (B, L + 1), each row with its next token appended (PAD in a row finished
        before this step), and BoolTensor (B,), the rows finished after this step.
    """
    # Hint 1: you have the next token and the finishing rule as steps: how do they compose, and how does a (B,) token join (B, L) tokens?
    # Hint 2: your steps: next_tokens(logits), finish_rows; then the new tokens as a column (B, 1) after the old ones.
    # Hint 3: appended, finished = finish_rows(next_tokens(logits), finished, eos_token_id, pad_token_id); return torch.cat([tokens, appended.unsqueeze(1)], dim=1), finished
    ### BEGIN SOLUTION
    appended, finished = finish_rows(next_tokens(logits), finished, eos_token_id, pad_token_id)  # (B,), (B,)
    return torch.cat([tokens, appended.unsqueeze(1)], dim=1), finished  # (B, L + 1), (B,)
    ### END SOLUTION


@torch.no_grad()
def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    """Generate by always taking the most likely next token, as Hugging Face generate(do_sample=False, num_beams=1).

    The caller sets the mode: call model.eval() before you decode, as the grader does before it calls
    greedy_decode, which leaves the mode as it finds it. It runs without gradients (torch.no_grad above).

    The source is encoded once, by model.encoder with the source mask: memory (B, S, D). Each step then
    runs the decoder on all the tokens so far, (B, L), with the source mask for cross-attention at every step
    (model.decoder(tokens, memory, encoder_attention_mask=attention_mask)). It needs no target mask (generate()
    passes none): only finished rows hold padding, whatever the model predicts after it is replaced by
    pad_token_id, and the causal mask already hides it from every earlier position. The row's next token is
    the arg-max over V of model.lm_head's logits at the last position; a row that emitted eos_token_id at an
    earlier step gets pad_token_id instead. Decoding stops after the step in which the last unfinished row
    emits eos_token_id, or after max_new_tokens steps.

    Args:
        model: a Seq2SeqTransformer.
        input_ids: (B, S) source token ids.
        attention_mask: (B, S) 0/1 for the source, or None (no padding).

    Returns:
        LongTensor (B, L) on input_ids' device, L = 1 + the number of steps run <= 1 + max_new_tokens:
        bos_token_id, then the generated tokens; a row keeps its eos_token_id and continues with pad_token_id.
        Graded token for token against generate() on padded sources, with rows that finish at different steps
        and a row that never finishes.
    """
    # Hint 1: what is computed once and what every step? What does the decoder start from, and when may the loop stop early?
    # Hint 2: encode once; loop: the LM head's logits on the decoder's output for the tokens so far (source mask for cross-attention every step), your decode_step; stop once all have finished.
    # Hint 3: memory = model.encoder(input_ids, attention_mask); tokens = a (B, 1) column of bos_token_id; finished = all False; each step: logits = model.lm_head(model.decoder(tokens, memory, encoder_attention_mask=attention_mask)); tokens, finished = decode_step(tokens, logits, finished, eos_token_id, pad_token_id); break once finished.all()
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
