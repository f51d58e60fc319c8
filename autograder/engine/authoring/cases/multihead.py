"""The cases of `multihead`."""

import torch
from transformers import BertModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    attention_mask,
    config_arg,
    config_case,
    hf_run,
    hf_trained,
    part_of,
    randn,
    random_mask,
    random_params,
)
from autograder.engine.judge import hf

# In train mode, multi-head attention is graded on its output alone: BERT returns its attention weights after
# dropout, the reference before it, and either is right (SPEC leaves it open); training uses the output only.
MULTIHEAD_TRAINED = ["output"]


def build(b):
    _reference_cases(b)
    _hf_cases(b)


def _reference_cases(b):
    init = [config_arg(CONFIG)]
    cases = [
        ("self-no-mask", "self-attention, B=2, T=5, no mask", 2, 5, None, None),
        ("self-causal-mask", "self-attention with a causal (T, T) mask", 2, 6, None, "causal"),
        ("self-padding-mask", "self-attention with a (B, 1, 1, T) padding mask", 3, 6, None, "padding"),
        ("self-full-mask", "self-attention with a (B, 1, T, T) mask", 2, 5, None, "full"),
        ("cross-padding-mask", "cross-attention, T=4, S=7, (B, 1, 1, S) mask", 2, 4, 7, "padding"),
        ("cross-batch-1", "cross-attention, batch of 1, T=3, S=6, no mask", 1, 3, 6, None),
    ]
    for case_id, about, B, T, S, mask_kind in cases:
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {"hidden_states": randn(g, B, T, CONFIG.hidden_size)}
        kwargs = {}
        if mask_kind:
            inputs["mask"] = random_mask(g, mask_kind, B, T, S or T)
            kwargs["mask"] = In("mask")
        if S:
            inputs["key_value_states"] = randn(g, B, S, CONFIG.hidden_size)
            kwargs["key_value_states"] = In("key_value_states")
        b.add(
            case_id,
            about,
            "reference",
            "MultiHeadAttention",
            init=init,
            params=random_params(b.reference["MultiHeadAttention"], init, b.seed(case_id)),
            args=[In("hidden_states")],
            kwargs=kwargs,
            outputs=["output", "weights"],
            inputs=inputs,
            train_outputs=MULTIHEAD_TRAINED,
        )

    config_case(
        b,
        "MultiHeadAttention",
        lambda g, c: {"hidden_states": randn(g, 2, 6, c.hidden_size), "mask": random_mask(g, "padding", 2, 6, 6)},
        outputs=["output", "weights"],
        args=["hidden_states"],
        kwargs=["mask"],
        train_outputs=MULTIHEAD_TRAINED,
    )


def _hf_cases(b):
    # Layer 0 of a BertModel: weights against output_attentions, output against the attention's output dense.
    model = hf_run(hf.randomize(BertModel(CONFIG), b.seed("hf")))
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    input_ids = torch.randint(0, CONFIG.vocab_size, (2, 6), generator=g)
    mask = attention_mask([6, 4], 6)
    captured: dict[str, torch.Tensor] = {}
    hooks = [
        # Rounding the embeddings to float32 lets the student's float32 run see the very same input.
        model.embeddings.register_forward_hook(lambda m, i, o: captured.setdefault("hidden", o.float().double())),
        model.encoder.layer[0].attention.output.dense.register_forward_hook(
            lambda m, i, o: captured.setdefault("output", o)
        ),
    ]
    with torch.no_grad():
        outputs = model(input_ids, attention_mask=mask, output_attentions=True)
    for hook in hooks:
        hook.remove()
    layer_0 = part_of(b.spec_shapes("TransformerEncoder", CONFIG), "layers.0.attention.")
    attention = model.encoder.layer[0].attention
    additive = (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float64).min  # HF's own mask

    def attend(hidden_states):
        return attention.output.dense(attention.self(hidden_states, attention_mask=additive)[0])

    b.add(
        "hf-bert-layer-0",
        "layer 0 of a seeded BertModel on its own embeddings, padding mask",
        "hf",
        "MultiHeadAttention",
        init=[config_arg(CONFIG)],
        params={k: v.float() for k, v in layer_0(model.state_dict()).items()},
        args=[In("hidden_states")],
        kwargs={"mask": In("mask")},
        outputs=["output", "weights"],
        inputs={"hidden_states": captured["hidden"].float(), "mask": mask.bool()[:, None, None, :]},
        expected=[captured["output"], outputs.attentions[0]],
        train_outputs=MULTIHEAD_TRAINED,
        hf_train=lambda upstream: hf_trained(
            model, attend, {"hidden_states": captured["hidden"]}, ["output"], upstream, layer_0
        ),
    )
