"""The cases of the public step checks: the helper functions that the notebooks' ```step blocks ask for, each a
piece of one component (notebooks.py), against the reference's own helper on a few small inputs.

Public only (never graded, so no hidden cases and no mistakes): each case's meta names the component whose file
defines the step, whose tripwire watches the student's step as it watches the component.
"""

import torch

from autograder.engine.authoring.builder import In, attention_mask, randn, random_mask

# step: the component whose reference file defines it.
STEPS = {
    "attention_scores": "attention",
    "masked_scores": "attention",
    "attention_weights": "attention",
    "split_heads": "multihead",
    "attend": "multihead",
    "merge_heads": "multihead",
    "mean_and_variance": "layernorm",
    "normalise": "layernorm",
    "scale_and_shift": "layernorm",
    "gelu": "feedforward",
    "sinusoid_angles": "embeddings",
    "interleave_sin_cos": "embeddings",
    "embedding_sum": "embeddings",
    "add_and_norm": "encoder",
    "self_attention_block": "encoder",
    "encoder_mask": "encoder",
    "pool": "heads",
    "self_attention_mask": "decoder",
    "masked_self_attention_block": "decoder",
    "cross_attention_block": "decoder",
    "next_tokens": "seq2seq",
    "finish_rows": "seq2seq",
    "decode_step": "seq2seq",
}


def build(b):
    for cases in (_attention, _multihead, _layernorm, _feedforward, _embeddings, _encoder, _heads, _decoder, _seq2seq):
        cases(b)


def _add(b, step, case_id, about, inputs, args, outputs=("output",), kwargs=None, dtypes=("float32", "float64")):
    b.add(
        f"{step}-{case_id}",
        about,
        "step",
        step,
        args=args,
        kwargs=kwargs,
        outputs=list(outputs),
        inputs=inputs,
        dtypes=list(dtypes),
        meta={"component": STEPS[step]},
        train_outputs=[],
    )


def _generator(b, step, case_id):
    return torch.Generator().manual_seed(b.seed(f"{step}-{case_id}"))


def _attention(b):
    for case_id, about, lead, T, S, dh in (
        ("3d", "3-D (B=2), T=3 queries, S=5 keys, Dh=4", (2,), 3, 5, 4),
        ("4d", "4-D (B=2, H=2), T=4, S=3, Dh=9", (2, 2), 4, 3, 9),
    ):
        g = _generator(b, "attention_scores", case_id)
        inputs = {"query": randn(g, *lead, T, dh), "key": randn(g, *lead, S, dh)}
        _add(b, "attention_scores", case_id, about, inputs, [In("query"), In("key")])
    for case_id, about, lead, T, S, kind in (
        ("TxS-mask", "scores (2, 3, 5), a (T, S) mask", (2,), 3, 5, "TS"),
        ("padding-mask", "scores (2, 2, 3, 5), a (B, 1, 1, S) padding mask", (2, 2), 3, 5, "padding"),
        ("causal-mask", "scores (1, 2, 4, 4), a causal (T, T) mask", (1, 2), 4, 4, "causal"),
    ):
        g = _generator(b, "masked_scores", case_id)
        inputs = {"scores": randn(g, *lead, T, S, scale=2.0), "mask": random_mask(g, kind, lead[0], T, S)}
        _add(b, "masked_scores", case_id, about, inputs, [In("scores"), In("mask")])
    g = _generator(b, "masked_scores", "no-mask")
    _add(b, "masked_scores", "no-mask", "scores (2, 3, 5), mask None", {"scores": randn(g, 2, 3, 5)}, [In("scores")])
    for case_id, about, lead, T, S, blocked in (
        ("T-ne-S", "scores (2, 3, 5), no blocked position", (2,), 3, 5, None),
        ("blocked", "scores (2, 2, 4, 6) with -inf where a mask blocks", (2, 2), 4, 6, "full"),
    ):
        g = _generator(b, "attention_weights", case_id)
        scores = randn(g, *lead, T, S, scale=2.0)
        if blocked:
            scores = scores.masked_fill(~random_mask(g, blocked, lead[0], T, S), float("-inf"))
        _add(b, "attention_weights", case_id, about, {"scores": scores}, [In("scores")])


def _multihead(b):
    for case_id, about, B, T, H, dh in (
        ("B2-T3-H2", "x (2, 3, 8) into H=2 heads of Dh=4", 2, 3, 2, 4),
        ("B1-T5-H3", "x (1, 5, 6) into H=3 heads of Dh=2", 1, 5, 3, 2),
    ):
        g = _generator(b, "split_heads", case_id)
        _add(b, "split_heads", case_id, about, {"x": randn(g, B, T, H * dh)}, [In("x"), H])
        g = _generator(b, "merge_heads", case_id)
        about = f"x {(B, H, T, dh)}, {H} heads of Dh={dh} side by side"
        _add(b, "merge_heads", case_id, about, {"x": randn(g, B, H, T, dh)}, [In("x")])
    for case_id, about, T, S, kind in (
        ("self", "self-attention, (B=2, H=2, T=4, Dh=3), no mask", 4, 4, None),
        ("cross-padding", "cross-attention, T=3, S=5, a (B, 1, 1, S) padding mask", 3, 5, "padding"),
    ):
        g = _generator(b, "attend", case_id)
        inputs = {"q": randn(g, 2, 2, T, 3), "k": randn(g, 2, 2, S, 3), "v": randn(g, 2, 2, S, 3)}
        args = [In("q"), In("k"), In("v")]
        if kind:
            inputs["mask"] = random_mask(g, kind, 2, T, S)
            args.append(In("mask"))
        _add(b, "attend", case_id, about, inputs, args, outputs=("context", "weights"))


def _layernorm(b):
    for case_id, about, shape in (("3d", "x (2, 3, 5)", (2, 3, 5)), ("2d", "x (4, 6)", (4, 6))):
        g = _generator(b, "mean_and_variance", case_id)
        inputs = {"x": randn(g, *shape, scale=2.0, shift=1.0)}
        _add(b, "mean_and_variance", case_id, about, inputs, [In("x")], outputs=("mean", "variance"))
    for case_id, about, eps in (
        ("eps-0.5", "x (2, 3, 4), eps 0.5", 0.5),
        ("eps-1e-12", "x (2, 3, 4), eps 1e-12", 1e-12),
    ):
        g = _generator(b, "normalise", case_id)
        inputs = {
            "x": randn(g, 2, 3, 4),
            "mean": randn(g, 2, 3, 1),
            "variance": randn(g, 2, 3, 1).abs() + 0.25,
        }
        _add(b, "normalise", case_id, about, inputs, [In("x"), In("mean"), In("variance"), eps])
    g = _generator(b, "scale_and_shift", "3d")
    inputs = {"normalised": randn(g, 2, 3, 4), "weight": randn(g, 4, shift=1.0), "bias": randn(g, 4)}
    args = [In("normalised"), In("weight"), In("bias")]
    _add(b, "scale_and_shift", "3d", "normalised (2, 3, 4), weight and bias (4,)", inputs, args)


def _feedforward(b):
    g = _generator(b, "gelu", "range")
    x = torch.cat([torch.linspace(-4, 4, 17), randn(g, 15, scale=2.0)]).view(2, 16)
    _add(b, "gelu", "range", "x (2, 16): -4 to 4 in steps of 0.5, and 15 random values", {"x": x}, [In("x")])


def _embeddings(b):
    for case_id, (max_len, d_model) in (("even", (6, 8)), ("odd", (5, 7))):
        about = f"max_len={max_len}, d_model={d_model}"
        _add(b, "sinusoid_angles", case_id, about, {}, [max_len, d_model], dtypes=(None,))
        g = _generator(b, "interleave_sin_cos", case_id)
        angles = randn(g, max_len, (d_model + 1) // 2, scale=2.0)
        _add(b, "interleave_sin_cos", case_id, about, {"angles": angles}, [In("angles"), d_model])
    for case_id, about, types in (
        ("types", "input_ids (2, 4), token types given", True),
        ("no-types", "input_ids (2, 3), token_type_ids None", False),
    ):
        g = _generator(b, "embedding_sum", case_id)
        T = 4 if types else 3
        inputs = {
            "input_ids": torch.randint(0, 7, (2, T), generator=g),
            "token_table": randn(g, 7, 5),
            "position_table": randn(g, 6, 5),
            "type_table": randn(g, 3, 5),
        }
        args = [In("input_ids"), In("token_table"), In("position_table"), In("type_table")]
        if types:
            inputs["token_type_ids"] = torch.randint(0, 3, (2, T), generator=g)
            args.append(In("token_type_ids"))
        _add(b, "embedding_sum", case_id, about, inputs, args)


def _norm(g, D):
    """A layer norm's weight and bias, (D,) each, away from the identity so that leaving them out shows."""
    return {"weight": randn(g, D, scale=0.5, shift=1.0), "bias": randn(g, D, scale=0.5)}


NORM_ARGS = [In("weight"), In("bias")]


def _encoder(b):
    for case_id, about, shape, eps in (
        ("3d-eps-0.5", "x and sublayer_output (2, 3, 4), eps 0.5", (2, 3, 4), 0.5),
        ("eps-1e-12", "x and sublayer_output (1, 2, 6), eps 1e-12", (1, 2, 6), 1e-12),
    ):
        g = _generator(b, "add_and_norm", case_id)
        inputs = {
            "x": randn(g, *shape, shift=1.0),
            "sublayer_output": randn(g, *shape, scale=2.0),
            **_norm(g, shape[-1]),
        }
        _add(b, "add_and_norm", case_id, about, inputs, [In("x"), In("sublayer_output"), *NORM_ARGS, eps])
    for case_id, about, B, T, D, kind in (
        ("padding", "x (2, 5, 4), a (B, 1, 1, T) padding mask, eps 0.1", 2, 5, 4, "padding"),
        ("no-mask", "x (1, 3, 6), mask None, eps 0.1", 1, 3, 6, None),
    ):
        g = _generator(b, "self_attention_block", case_id)
        inputs = {"x": randn(g, B, T, D), **_norm(g, D)}
        mask = None
        if kind:
            inputs["mask"] = random_mask(g, kind, B, T, T)
            mask = In("mask")
        _add(b, "self_attention_block", case_id, about, inputs, [In("x"), mask, *NORM_ARGS, 0.1])
    for case_id, about, lengths, total, left in (
        ("right-padding", "attention_mask (2, 5), lengths 5 and 3, padding on the right", (5, 3), 5, False),
        ("left-padding", "attention_mask (3, 4), lengths 2, 4 and 1, padding on the left", (2, 4, 1), 4, True),
    ):
        inputs = {"attention_mask": attention_mask(list(lengths), total, left=left)}
        _add(b, "encoder_mask", case_id, about, inputs, [In("attention_mask")], dtypes=(None,))


def _heads(b):
    for case_id, about, B, T, D in (
        ("B2-T3", "hidden_states (2, 3, 4), weight (4, 4), bias (4,)", 2, 3, 4),
        ("B3-T5", "hidden_states (3, 5, 6), weight (6, 6), bias (6,)", 3, 5, 6),
    ):
        g = _generator(b, "pool", case_id)
        inputs = {"hidden_states": randn(g, B, T, D), "weight": randn(g, D, D, scale=0.7), "bias": randn(g, D)}
        _add(b, "pool", case_id, about, inputs, [In("hidden_states"), In("weight"), In("bias")])


def _decoder(b):
    for case_id, about, lengths in (
        ("padded", "T=4, attention_mask (2, 4), lengths 4 and 2", (4, 2)),
        ("no-padding", "T=5, attention_mask None", None),
    ):
        if lengths is None:
            _add(b, "self_attention_mask", case_id, about, {}, [5], dtypes=(None,))
            continue
        inputs = {"attention_mask": attention_mask(list(lengths), 4)}
        _add(b, "self_attention_mask", case_id, about, inputs, [4, In("attention_mask")], dtypes=(None,))
    causal_padded = torch.ones(4, 4, dtype=torch.bool).tril() & attention_mask([4, 3], 4).bool()[:, None, None, :]
    for case_id, about, D, mask in (
        ("causal", "x (2, 4, 4), the causal (T, T) mask, eps 0.1", 4, torch.ones(4, 4, dtype=torch.bool).tril()),
        ("causal-padding", "x (2, 4, 6), causal and padding (B, 1, T, T), eps 0.1", 6, causal_padded),
    ):
        g = _generator(b, "masked_self_attention_block", case_id)
        inputs = {"x": randn(g, 2, 4, D), "self_mask": mask, **_norm(g, D)}
        _add(b, "masked_self_attention_block", case_id, about, inputs, [In("x"), In("self_mask"), *NORM_ARGS, 0.1])
    for case_id, about, B, T, S, D, kind in (
        ("padding", "x (2, 3, 4), memory (2, 5, 4), a (B, 1, 1, S) padding mask, eps 0.1", 2, 3, 5, 4, "padding"),
        ("no-mask", "x (1, 2, 6), memory (1, 4, 6), cross_mask None, eps 0.1", 1, 2, 4, 6, None),
    ):
        g = _generator(b, "cross_attention_block", case_id)
        inputs = {"x": randn(g, B, T, D), "memory": randn(g, B, S, D), **_norm(g, D)}
        mask = None
        if kind:
            inputs["cross_mask"] = random_mask(g, kind, B, T, S)
            mask = In("cross_mask")
        args = [In("x"), In("memory"), mask, *NORM_ARGS, 0.1]
        _add(b, "cross_attention_block", case_id, about, inputs, args)


def _seq2seq(b):
    """Greedy decoding's steps, on logits that the cases make up: each step reads the model's logits, not the model
    (a step's check holds no Seq2SeqTransformer to call)."""
    for case_id, about, B, L, V in (
        ("B3-L4", "logits (3, 4, 7)", 3, 4, 7),
        ("B2-L1", "logits (2, 1, 5): BOS only", 2, 1, 5),
    ):
        g = _generator(b, "next_tokens", case_id)
        _add(b, "next_tokens", case_id, about, {"logits": randn(g, B, L, V, scale=2.0)}, [In("logits")])
    # Hand-picked: a row finished before that proposes a token, one that emits EOS now, one that goes on, and a row
    # finished before that proposes EOS again; the second case with other ids, PAD not 0.
    for case_id, about, proposed, finished, eos, pad in (
        ("mixed", "4 rows, EOS = 2, PAD = 0", [7, 2, 5, 2], [True, False, False, True], 2, 0),
        ("pad-9", "3 rows, EOS = 3, PAD = 9", [3, 3, 4], [False, True, False], 3, 9),
    ):
        inputs = {"next_token": torch.tensor(proposed), "finished": torch.tensor(finished)}
        args = [In("next_token"), In("finished"), eos, pad]
        _add(b, "finish_rows", case_id, about, inputs, args, outputs=("next_token", "finished"), dtypes=(None,))
    # Row 0 emits EOS now, row 1 finished at the step before (its EOS, then PAD) and proposes 4, row 2 goes on.
    g = _generator(b, "decode_step", "finished-row")
    logits = randn(g, 3, 3, 6)
    logits[:, -1] += 10 * torch.nn.functional.one_hot(torch.tensor([2, 4, 3]), 6)  # the last position's arg-max
    inputs = {
        "tokens": torch.tensor([[1, 4, 5], [1, 2, 0], [1, 3, 3]]),
        "logits": logits,
        "finished": torch.tensor([False, True, False]),
    }
    args = [In("tokens"), In("logits"), In("finished"), 2, 0]
    about = "tokens (3, 3), logits (3, 3, 6), a row finished before, EOS = 2, PAD = 0"
    _add(b, "decode_step", "finished-row", about, inputs, args, outputs=("tokens", "finished"))
    g = _generator(b, "decode_step", "first-step")
    inputs = {
        "tokens": torch.ones(2, 1, dtype=torch.long),
        "logits": randn(g, 2, 1, 5),
        "finished": torch.zeros(2).bool(),
    }
    args = [In("tokens"), In("logits"), In("finished"), 4, 0]
    about = "tokens (2, 1): BOS only, logits (2, 1, 5), EOS = 4, PAD = 0"
    _add(b, "decode_step", "first-step", about, inputs, args, outputs=("tokens", "finished"))
