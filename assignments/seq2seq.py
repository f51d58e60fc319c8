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
        raise NotImplementedError()


def next_tokens(logits):
    """The greedy choice, every row's most likely next token, read at the last position.

    Args:
        logits: (B, L, V) the LM head's scores at each of the L positions so far; position l scores the token
            that follows token l, so only the last position scores a token that is not there yet.

    Returns:
        LongTensor (B,): the arg-max over the vocabulary V of the last position's logits.
    """
    raise NotImplementedError()


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
    raise NotImplementedError()


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
    raise NotImplementedError()


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
    raise NotImplementedError()
