"""Part 10's ungraded exercises and their given code: a decoder-only language model made of the course's parts, the
loop that writes with it, and the model run with a key-value cache (given).

No SPEC name: the course builder copies these definitions into the cells of course/parts/10_language_model.md,
solution regions included, as it copies the reference's; CharLM's and generate's checks are in
autograder/course/language_model.py.
The part's graded exercises (sampling, the cache, beam search) are the generation component's, solutions/generation.py.
"""

import torch
from embeddings import Embeddings
from encoder import TransformerEncoderLayer
from generation import attend_with_cache, sample_next
from heads import LanguageModelHead
from masking import causal_mask
from torch import nn


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


def generate(model, prompt_ids, new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None, cached=False):
    """The prompt, followed by new_tokens tokens, each drawn by sample_next from the model's scores of the next one.

    Args:
        model: a CharLM; it writes in eval mode (no dropout), and nothing it computes here is trained on.
        prompt_ids: (B, P) token ids.
        new_tokens: N, how many tokens to append to each row.
        temperature, top_k, top_p, generator: passed to sample_next at every step, the generator included, so
            that a seeded generator writes the same tokens as N seeded calls of sample_next would.
        cached: False, every step scores the whole sequence so far with model(...); True, the prompt goes through
            next_logits once and then every step the one token just drawn (one cache per layer, empty at first).

    Returns:
        LongTensor (B, P + N): the prompt unchanged, then the tokens drawn, in order.

    Raises:
        ValueError, before anything runs, when P + N is more than the model's positions
        (model.embeddings.position_embeddings.num_embeddings).
    """
    # Hint 1: which row of the logits scores the next token, what shape must a drawn token have to be appended to every row, and what does the cached path feed the model after the prompt?
    # Hint 2: check P + N against the positions first; eval mode and no gradients around the loop; each step: the logits (the whole sequence, or the new tokens through next_logits), their last row to sample_next with every argument, the drawn tokens as a new column.
    # Hint 3: new = sample_next(logits[:, -1], temperature, top_k, top_p, generator)[:, None]; ids = torch.cat([ids, new], dim=1); with the cache, logits = next_logits(model, new, caches)
    ### BEGIN SOLUTION
    limit = model.embeddings.position_embeddings.num_embeddings
    if prompt_ids.size(1) + new_tokens > limit:
        raise ValueError(f"{prompt_ids.size(1)} + {new_tokens} tokens is more than the model's {limit} positions")
    model.eval()
    caches = [{} for _ in model.layers]
    ids, new = prompt_ids, prompt_ids
    with torch.no_grad():
        for _ in range(new_tokens):
            logits = next_logits(model, new, caches) if cached else model(ids)  # (B, N or length so far, V)
            new = sample_next(logits[:, -1], temperature, top_k, top_p, generator)[:, None]  # (B, 1)
            ids = torch.cat([ids, new], dim=1)
    return ids
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
