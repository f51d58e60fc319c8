"""The catalog's mistakes in `generation`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

MISTAKES = entries(
    "generation",
    Mistake(
        "temperature multiplied",
        says="the logits are multiplied by the temperature; divide them by it (logits / temperature), so that a "
        "temperature below 1 sharpens the distribution and one above 1 flattens it.",
        edits=[("    logits = logits / temperature\n", "    logits = logits * temperature\n")],
    ),
    Mistake(
        "temperature applied to the probabilities",
        says="the temperature divides the probabilities after the softmax, which leaves rows that do not sum to 1; "
        "divide the logits by it before the softmax.",
        edits=[
            ("    logits = logits / temperature\n", ""),
            ("    return F.softmax(logits, dim=-1)\n", "    return F.softmax(logits, dim=-1) / temperature\n"),
        ],
    ),
    Mistake(
        "top-k drops the k-th largest",
        says="top-k keeps only the logits above the k-th largest, so k - 1 tokens are left; keep the k-th largest and "
        "every logit equal to it (mask logits < kth, not <=).",
        edits=[('logits.masked_fill(logits < kth, float("-inf"))', 'logits.masked_fill(logits <= kth, float("-inf"))')],
    ),
    Mistake(
        "top-k drops ties at the k-th value",
        says="top-k keeps exactly k tokens, dropping logits equal to the k-th largest; keep every logit equal to it, as "
        "Hugging Face does: mask only those below the k-th largest value.",
        edits=[
            (
                'logits.masked_fill(logits < kth, float("-inf"))',
                "logits.masked_fill(torch.ones_like(logits, dtype=torch.bool).scatter(-1, logits.topk(top_k, "
                "dim=-1).indices, False), float('-inf'))",
            )
        ],
    ),
    Mistake(
        "top-p drops the token that crosses top_p",
        says="top-p drops a token once the sum including it reaches top_p, so the token that crosses the threshold is "
        "lost; keep it: drop a token only when the sum of the larger ones before it reaches top_p.",
        edits=[("before = probabilities.cumsum(dim=-1) - probabilities", "before = probabilities.cumsum(dim=-1)")],
        variants=[
            (
                "without keeping the largest",
                [
                    ("before = probabilities.cumsum(dim=-1) - probabilities", "before = probabilities.cumsum(dim=-1)"),
                    ("        drop[:, 0] = False  # the largest stays, whatever top_p is\n", ""),
                ],
            )
        ],
    ),
    Mistake(
        "top-p before top-k",
        says="top-p is applied before top-k; apply the temperature, then top-k, then top-p on the logits top-k left.",
        edits=[
            ("    if top_k is not None:\n        kth", "    if top_k is not None and top_p is None:\n        kth"),
            (
                "    return F.softmax(logits, dim=-1)\n",
                "    if top_k is not None and top_p is not None:\n"
                "        kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[:, -1:]\n"
                "        logits = logits.masked_fill(logits < kth, float('-inf'))\n"
                "    return F.softmax(logits, dim=-1)\n",
            ),
        ],
    ),
    Mistake(
        "sample_next ignores top_k and top_p",
        says="sample_next draws from the temperature's distribution alone; pass top_k and top_p on to "
        "sampling_probabilities, so that the draw comes from the filtered distribution.",
        edits=[
            (
                "probabilities = sampling_probabilities(logits, temperature, top_k, top_p)  #",
                "probabilities = sampling_probabilities(logits, temperature)  #",
            )
        ],
    ),
    Mistake(
        "sample_next returns (B, 1)",
        says="sample_next returns the draws shaped (B, 1), as torch.multinomial gives them; return one token per row, "
        "shaped (B,): index the sample dimension away ([:, 0]).",
        edits=[
            (
                "    return torch.multinomial(probabilities, 1, generator=generator)[:, 0]\n",
                "    return torch.multinomial(probabilities, 1, generator=generator)\n",
            )
        ],
    ),
    Mistake(
        "cache attention without the causal mask",
        says="the new positions attend to every key, the later prompt positions too, so the prompt sees its own "
        "future; mask it causally: new position i (position S + i) may see keys 0 to S + i.",
        edits=[
            (
                "context, _ = scaled_dot_product_attention(split(attention.query(hidden_states)), keys, values, mask)",
                "context, _ = scaled_dot_product_attention(split(attention.query(hidden_states)), keys, values, None)",
            )
        ],
    ),
    Mistake(
        "cache mask not shifted by the cached positions",
        says="the causal mask over the cache is not shifted by the S cached positions, so a new position sees too few "
        "keys; new position i is position S + i and sees keys 0 to S + i: tril(S) of an (N, S + N) mask.",
        edits=[
            (
                "dtype=torch.bool, device=hidden_states.device).tril(S)",
                "dtype=torch.bool, device=hidden_states.device).tril()",
            )
        ],
    ),
    Mistake(
        "cache not updated",
        says="the cache keeps the keys and values of the first call only; store the concatenated keys and values back "
        "in the cache after every call, so that it holds every position so far.",
        edits=[
            (
                '    cache["key"], cache["value"] = keys, values  # (B, H, S + N, Dh)\n',
                '    cache.setdefault("key", keys)\n    cache.setdefault("value", values)\n',
            )
        ],
    ),
    Mistake(
        "beam search without the length penalty",
        says="finished hypotheses are compared by their summed log-probabilities alone; divide each one's score by its "
        "length (tokens generated, EOS included) to the power length_penalty.",
        edits=[
            (
                "new_finished.append((score.item() / step**length_penalty, tokens))",
                "new_finished.append((score.item(), tokens))",
            )
        ],
    ),
    Mistake(
        "beam search counts BOS in the length",
        says="the length penalty counts BOS in the hypothesis's length; count the tokens generated only, EOS included "
        "and BOS not.",
        edits=[
            (
                "new_finished.append((score.item() / step**length_penalty, tokens))",
                "new_finished.append((score.item() / (step + 1) ** length_penalty, tokens))",
            )
        ],
    ),
    Mistake(
        "beam search finishes candidates ranked beyond num_beams",
        says="a candidate that ends with EOS is kept as finished even where it ranks beyond the first num_beams of the "
        "step; only those among the first num_beams candidates finish (Hugging Face's rule), the others are dropped.",
        edits=[("                    if rank < num_beams:\n", "                    if True:\n")],
    ),
)
