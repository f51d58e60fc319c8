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
    # Hint 1: in which order are the three filters applied, and what value must a logit take so that its probability is exactly 0? For top-p, is a token kept by the mass before it or by the mass including it?
    # Hint 2: divide by the temperature; -inf below the k-th largest of each row; sort the probabilities descending and drop a token once the sum of those before it reaches top_p (the largest always stays); map back to the vocabulary's order; softmax.
    # Hint 3: kth = logits.topk(k, dim=-1).values[:, -1:]; logits.masked_fill(logits < kth, -inf); sorted, order = logits.sort(descending=True); before = p.cumsum(-1) - p; drop = before >= top_p; drop[:, 0] = False; scatter drop back by order
    ### BEGIN SOLUTION
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]  # (B, 1) the k-th largest of each row
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_logits, order = logits.sort(dim=-1, descending=True)  # (B, V)
        probabilities = F.softmax(sorted_logits, dim=-1)
        before = probabilities.cumsum(dim=-1) - probabilities  # (B, V) the sum of the larger ones before each
        drop = before >= top_p
        drop[:, 0] = False  # the largest stays, whatever top_p is
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))  # back in the vocabulary's order
    return F.softmax(logits, dim=-1)
    ### END SOLUTION


def sample_next(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """One token per row, drawn from sampling_probabilities(logits, temperature, top_k, top_p).

    One batched draw, torch.multinomial(probabilities, 1, generator=generator), so that a seeded generator
    draws the same tokens every time.

    Returns:
        LongTensor (B,) of token ids.
    """
    # Hint 1: one token per row, drawn from which distribution? What shape does one draw per row come back in, and what shape must you return?
    # Hint 2: the probabilities of the function above, then one multinomial draw of 1 sample for the whole batch with the generator; drop the sample dimension.
    # Hint 3: return torch.multinomial(sampling_probabilities(logits, temperature, top_k, top_p), 1, generator=generator)[:, 0]
    ### BEGIN SOLUTION
    probabilities = sampling_probabilities(logits, temperature, top_k, top_p)  # (B, V)
    return torch.multinomial(probabilities, 1, generator=generator)[:, 0]
    ### END SOLUTION


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

    # Hint 1: the cache holds the keys and values of the positions before these: what do the new positions add to it, and which of all positions may new position i see?
    # Hint 2: project the new positions' keys and values, split the heads, concatenate after the cached ones along the positions' dimension and store them; a (N, S + N) causal mask shifted by S; attention; merge the heads; the output projection.
    # Hint 3: keys = torch.cat([cache['key'], k], dim=2) (k alone at first); mask = torch.ones(N, S + N, dtype=torch.bool).tril(S); context, _ = scaled_dot_product_attention(q, keys, values, mask)
    ### BEGIN SOLUTION
    keys, values = split(attention.key(hidden_states)), split(attention.value(hidden_states))
    if cache:
        keys = torch.cat([cache["key"], keys], dim=2)
        values = torch.cat([cache["value"], values], dim=2)
    cache["key"], cache["value"] = keys, values  # (B, H, S + N, Dh)
    S = keys.size(2) - N
    # Query i of the new ones is position S + i: it may see keys 0 .. S + i.
    mask = torch.ones(N, S + N, dtype=torch.bool, device=hidden_states.device).tril(S)  # (N, S + N)
    context, _ = scaled_dot_product_attention(split(attention.query(hidden_states)), keys, values, mask)
    return attention.output(context.transpose(1, 2).reshape(B, N, D))  # heads merged back: (B, N, D)
    ### END SOLUTION


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
    # Hint 1: a hypothesis's score is the sum of its tokens' log-probabilities: which candidates does each step consider, and when is a hypothesis finished rather than extended?
    # Hint 2: per row, encode once; per step, add each beam's next-token log-probabilities to its score, flatten (beams, V) and take the 2 * num_beams best; those ending in EOS (or at the last step) go to the finished list with the length-penalised score, the rest become the next beams.
    # Hint 3: candidates = (scores[:, None] + log_probs).flatten(); top = candidates.topk(2 * num_beams); beam, token = divmod(index, V); finished when token == eos_token_id: score / length ** length_penalty
    ### BEGIN SOLUTION
    best = []
    for row in range(input_ids.size(0)):
        mask = None if attention_mask is None else attention_mask[row : row + 1]
        memory = model.encoder(input_ids[row : row + 1], mask)  # (1, S, D)
        beams = torch.full((1, 1), bos_token_id, dtype=torch.long, device=input_ids.device)  # (beams, length)
        scores = torch.zeros(1, dtype=memory.dtype, device=input_ids.device)  # (beams,) summed log-probabilities
        finished = []  # (normalised score, tokens), at most num_beams
        for step in range(1, max_new_tokens + 1):
            count = beams.size(0)
            beam_mask = None if mask is None else mask.expand(count, -1)  # (beams, S)
            hidden = model.decoder(beams, memory.expand(count, -1, -1), encoder_attention_mask=beam_mask)
            log_probs = F.log_softmax(model.lm_head(hidden[:, -1]), dim=-1)  # (beams, V)
            candidates = (scores[:, None] + log_probs).flatten()  # (beams * V,)
            top, index = candidates.topk(2 * num_beams)
            vocabulary = log_probs.size(-1)
            new_finished, running = [], []
            for rank, (score, beam, token) in enumerate(zip(top, index // vocabulary, index % vocabulary)):
                tokens = torch.cat([beams[beam], token[None]])
                if token == eos_token_id or step == max_new_tokens:
                    if rank < num_beams:
                        new_finished.append((score.item() / step**length_penalty, tokens))
                elif len(running) < num_beams:
                    running.append((score, tokens))
            if len(finished) < num_beams:  # once num_beams have finished, none joins them (early stopping)
                finished = sorted(finished + new_finished, key=lambda hypothesis: -hypothesis[0])[:num_beams]
            if len(finished) == num_beams or step == max_new_tokens:
                break
            scores = torch.stack([score for score, _ in running])
            beams = torch.stack([tokens for _, tokens in running])
        best.append(finished[0][1])
    length = max(len(tokens) for tokens in best)
    return torch.stack([F.pad(tokens, (0, length - len(tokens)), value=pad_token_id) for tokens in best])
    ### END SOLUTION
