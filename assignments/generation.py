"""Generating text: sampling with temperature, top-k and top-p, attention with a cache of keys and values, and beam
search on the encoder-decoder model (part 10)."""

import torch
from attention import scaled_dot_product_attention
from torch.nn import functional as F


def sampling_probabilities(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution the next token is drawn from, as Hugging Face's temperature, top-k and top-p logits
    processors then a softmax make it.

    Args:
        logits: (B, V) the scores of the next token.
        temperature: > 0; the logits are divided by it first. Below 1 sharpens the distribution, above 1 flattens it.
        top_k: keep the top_k largest logits of each row (every logit equal to the top_k-th largest too), the
            rest get probability 0; None keeps all V.
        top_p: then keep the smallest set of the largest probabilities (of the logits left) whose sum reaches
            top_p, and always the largest; the rest get probability 0. None keeps them all.

    Returns:
        (B, V): each row a distribution, 0 outside the tokens kept.
    """
    raise NotImplementedError()


def sample_next(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """One token per row, drawn from sampling_probabilities(logits, temperature, top_k, top_p).

    One batched draw, torch.multinomial(probabilities, 1, generator=generator), so that a seeded generator
    draws the same tokens every time.

    Returns:
        LongTensor (B,) of token ids.
    """
    raise NotImplementedError()


def attend_with_cache(attention, hidden_states, cache):
    """Causal self-attention of N new positions over every position so far, with the keys and values of the
    earlier positions read from the cache rather than computed again. Eval mode: no dropout.

    Args:
        attention: a MultiHeadAttention; its query, key, value and output projections are used.
        hidden_states: (B, N, D) the new positions' inputs (the whole prompt at first, then N = 1 per step).
        cache: a dict, empty before the first call; after it, "key" and "value" are (B, H, S + N, Dh): the
            projected keys and values of every position so far, heads split. Updated in place.

    Returns:
        (B, N, D): the last N rows of attention(every position so far, causal mask)[0].
    """
    B, N, D = hidden_states.shape
    H = attention.num_heads

    def split(x):  # (B, N, D) -> (B, H, N, Dh)
        return x.view(B, N, H, D // H).transpose(1, 2)

    raise NotImplementedError()


@torch.no_grad()
def beam_search(
    model,
    input_ids,
    attention_mask=None,
    *,
    num_beams,
    bos_token_id,
    eos_token_id,
    pad_token_id,
    max_new_tokens,
    length_penalty=1.0,
):
    """The most likely sequence of each row that a beam of num_beams hypotheses finds, as Hugging Face
    generate(num_beams=num_beams, early_stopping=True, length_penalty=length_penalty) finds it.

    The caller sets the mode (model.eval() first). Each row is searched on its own. Its beams start as [BOS]
    alone, with score 0. At each step every beam's next-token log-probabilities (log_softmax of the LM head's
    logits at the last position) are added to its score, and the 2 * num_beams best (beam, token) candidates of
    all the beams are taken, best first. A candidate that ends with eos_token_id, or that reaches max_new_tokens
    tokens, is finished: among the first num_beams candidates, each one is kept with the score
    score / (tokens generated, EOS included) ** length_penalty, and the best num_beams finished ones are kept. The
    other candidates, best first, are the next step's num_beams beams. The row is done once num_beams hypotheses
    have finished (early stopping), or after max_new_tokens steps.

    Args:
        model: a Seq2SeqTransformer, in eval mode.
        input_ids: (B, S) source token ids.
        attention_mask: (B, S) 0/1 for the source, or None (no padding).
        length_penalty: the exponent of the length that divides a finished hypothesis's score: above 0 favours
            longer ones.

    Returns:
        LongTensor (B, L): each row's best finished hypothesis, BOS first, padded with pad_token_id to the
        longest of them (L <= 1 + max_new_tokens).
    """
    raise NotImplementedError()
