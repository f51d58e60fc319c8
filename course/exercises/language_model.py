"""Part 10's exercises: a decoder-only language model made of the course's parts, sampling, a key-value cache.

Not graded, and no SPEC name: the course builder copies these definitions into the exercise cells of
course/parts/10_language_model.md, solution regions included, as it copies the reference's; the checks that
follow each exercise are in autograder/course/language_model.py.
"""

import torch
from attention import scaled_dot_product_attention
from embeddings import Embeddings
from encoder import TransformerEncoderLayer
from heads import LanguageModelHead
from masking import causal_mask
from torch import nn
from torch.nn import functional as F


class CharLM(nn.Module):
    """A decoder-only (GPT-style) language model: embeddings, BERT's post-LN layers with a causal mask, LM head.

    A decoder-only layer is the encoder's layer with a causal mask: there is no encoder to cross-attend to.
    """

    def __init__(self, config):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.layers = nn.ModuleList([TransformerEncoderLayer(config) for _ in range(config.num_hidden_layers)])
        self.lm_head = LanguageModelHead(config)

    def forward(self, input_ids):
        """
        Args:
            input_ids: (B, T) token ids, T <= max_position_embeddings.

        Returns:
            logits (B, T, V): row t scores the token after input_ids[:, t], computed from tokens 0..t alone.
        """
        # Hint 1: a language model must not see the future: which mask does every layer get, and what turns the last hidden states into logits?
        # Hint 2: your embeddings, then every layer with causal_mask(T) as its mask, then the LM head.
        # Hint 3: mask = causal_mask(T, device=input_ids.device); h = self.embeddings(input_ids); for layer in self.layers: h = layer(h, mask); return self.lm_head(h)
        ### BEGIN SOLUTION
        mask = causal_mask(input_ids.size(1), device=input_ids.device)  # (T, T), True at j <= i
        hidden_states = self.embeddings(input_ids)  # (B, T, D)
        for layer in self.layers:
            hidden_states = layer(hidden_states, mask)
        return self.lm_head(hidden_states)  # (B, T, V)
        ### END SOLUTION


def sample_next(logits, temperature=1.0, top_k=None, generator=None):
    """One token per row, drawn from softmax(logits / temperature) restricted to the row's top_k largest logits.

    Args:
        logits: (B, V) the scores of the next token.
        temperature: > 0. Below 1 sharpens the distribution (towards the arg-max), above 1 flattens it.
        top_k: keep the k largest logits of each row and give every other token probability 0; None keeps all V.
        generator: a torch.Generator, so that the draws repeat.

    Returns:
        LongTensor (B,) of token ids.
    """
    # Hint 1: in which order: temperature, top-k, probabilities, a draw? What does a logit outside the top k become so that it is never drawn, and what shape is one draw per row?
    # Hint 2: divide by the temperature; logits below the k-th largest become -inf; softmax; torch.multinomial, one draw per row, squeezed to (B,).
    # Hint 3: scaled = logits / temperature; kth = scaled.topk(top_k, dim=-1).values[:, [-1]]; scaled = scaled.masked_fill(scaled < kth, float('-inf')); return torch.multinomial(F.softmax(scaled, dim=-1), generator=generator, num_samples=1).squeeze(-1)
    ### BEGIN SOLUTION
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1) the k-th largest of each row
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probabilities = F.softmax(logits, dim=-1)  # (B, V)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
    ### END SOLUTION


def generate(model, prompt_ids, new_tokens, temperature=1.0, top_k=None, generator=None, cached=False):
    """prompt_ids (B, P) followed by new_tokens sampled tokens: (B, P + new_tokens), in eval mode.

    Without the cache every step runs the whole model on the whole sequence so far and keeps the last row;
    with it (cached=True, needs next_logits) every step runs the model on the one new token.
    """
    limit = model.embeddings.position_embeddings.num_embeddings
    if prompt_ids.size(1) + new_tokens > limit:
        raise ValueError(f"{prompt_ids.size(1)} + {new_tokens} tokens is more than the model's {limit} positions")
    model.eval()
    caches = [{} for _ in model.layers]
    ids, new = prompt_ids, prompt_ids
    with torch.no_grad():
        for _ in range(new_tokens):
            logits = next_logits(model, new, caches) if cached else model(ids)  # (B, N or length so far, V)
            new = sample_next(logits[:, -1], temperature, top_k, generator)[:, None]  # (B, 1)
            ids = torch.cat([ids, new], dim=1)
    return ids


def attend_with_cache(attention, hidden_states, cache):
    """Causal self-attention of N new positions over every position so far, with the keys and values of the
    earlier positions read from the cache rather than computed again. Eval mode: no dropout.

    Args:
        attention: your MultiHeadAttention; its query, key, value and output projections are used.
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

    # Hint 1: the cache holds the keys and values of the positions already seen: where do the new ones go, and which keys may new position i see?
    # Hint 2: append the new keys and values to the cache's (dim 2); new position i sees cached ones and new ones <= i.
    # Hint 3: keys = torch.cat([cache['key'], keys], dim=2) (and values); mask = torch.tril(torch.ones(N, S + N, dtype=torch.bool), diagonal=S), S the cached length
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


def next_logits(model, input_ids, caches):
    """The model's logits (B, N, V) at N new tokens input_ids (B, N), the earlier tokens' keys and values
    being in caches (one dict per layer, updated): model(whole sequence)[:, -N:] computed for N rows only."""
    start = caches[0]["key"].size(2) if caches[0] else 0
    positions = torch.arange(start, start + input_ids.size(1), device=input_ids.device)  # (N,)
    embeddings = model.embeddings
    hidden_states = embeddings.layer_norm(
        embeddings.token_embeddings(input_ids)
        + embeddings.position_embeddings(positions)
        + embeddings.token_type_embeddings(torch.zeros_like(input_ids))
    )  # (B, N, D): Embeddings.forward, at positions start .. start + N - 1
    for layer, cache in zip(model.layers, caches, strict=True):
        # TransformerEncoderLayer.forward, with the cached attention in place of layer.attention.
        attended = layer.attention_norm(hidden_states + attend_with_cache(layer.attention, hidden_states, cache))
        hidden_states = layer.output_norm(attended + layer.feed_forward(attended))
    return model.lm_head(hidden_states)
