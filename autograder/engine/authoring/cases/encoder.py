"""The cases of `encoder`."""

import torch
from transformers import BertModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    config_arg,
    config_case,
    hf_encoder_cases,
    odd_tokens,
    randn,
    random_mask,
    random_params,
)


def build(b):
    init = [config_arg(CONFIG)]
    for case_id, about, B, T, padded in (
        ("layer-no-mask", "one layer, B=2, T=5, no mask", 2, 5, False),
        ("layer-padding-mask", "one layer, (B, 1, 1, T) padding mask", 3, 6, True),
        ("layer-batch-1", "one layer, batch of 1", 1, 4, False),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {"hidden_states": randn(g, B, T, CONFIG.hidden_size)}
        args = [In("hidden_states")]
        if padded:
            inputs["mask"] = random_mask(g, "padding", B, T, T)
            args.append(In("mask"))
        b.add(
            case_id,
            about,
            "reference",
            "TransformerEncoderLayer",
            init=init,
            params=random_params(b.reference["TransformerEncoderLayer"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )
    hf_encoder_cases(b, "hf", "TransformerEncoder", BertModel, prefix="")
    config_case(
        b,
        "TransformerEncoderLayer",
        lambda g, c: {"hidden_states": randn(g, 2, 5, c.hidden_size), "mask": random_mask(g, "padding", 2, 5, 5)},
        args=["hidden_states", "mask"],
        case_id="odd-config-layer",
    )
    config_case(
        b,
        "TransformerEncoder",
        lambda g, c: odd_tokens(g, c, 2, 9, [9, 6], types=True),
        args=["input_ids"],
        kwargs=["attention_mask", "token_type_ids"],
    )
