"""The cases of `decoder`."""

import torch
from transformers import BertModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    attention_mask,
    config_arg,
    config_case,
    decoder_config,
    hf_run,
    hf_trained,
    odd_tokens,
    randn,
    random_params,
    token_ids,
)
from autograder.engine.judge import hf


def build(b):
    _layer_cases(b)
    _hf_cases(b)
    _config_cases(b)


def _layer_cases(b):
    init = [config_arg(decoder_config(CONFIG))]  # SPEC: the decoder is BertModel with is_decoder, add_cross_attention
    for case_id, about, B, T, S, masks in (
        ("layer-causal", "one layer, causal (T, T) self mask, no cross mask", 2, 5, 6, False),
        ("layer-padding", "one layer, (B, 1, T, T) causal+padding self mask, (B, 1, 1, S) cross mask", 2, 6, 7, True),
        ("layer-batch-1", "one layer, batch of 1, T=3, S=5", 1, 3, 5, False),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {
            "hidden_states": randn(g, B, T, CONFIG.hidden_size),
            "encoder_hidden_states": randn(g, B, S, CONFIG.hidden_size),
        }
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        inputs["self_mask"] = causal & attention_mask([T, T - 2][:B], T).bool()[:, None, None, :] if masks else causal
        args = [In("hidden_states"), In("encoder_hidden_states"), In("self_mask")]
        if masks:
            inputs["cross_mask"] = attention_mask([S, S - 3][:B], S).bool()[:, None, None, :]
            args.append(In("cross_mask"))
        b.add(
            case_id,
            about,
            "reference",
            "TransformerDecoderLayer",
            init=init,
            params=random_params(b.reference["TransformerDecoderLayer"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )


def _hf_cases(b):
    config = decoder_config(CONFIG)
    model = hf_run(hf.randomize(BertModel(config), b.seed("hf")))
    shapes = b.spec_shapes("TransformerDecoder", config)
    params = {k: v.float() for k, v in hf.to_spec(model.state_dict(), shapes, decoders=("",)).items()}
    for case_id, about, lengths, T, source_lengths, S in (
        ("hf-masks", "target and source padding", [6, 4], 6, [7, 3], 7),
        ("hf-no-masks", "no masks but the causal one", None, 5, None, 4),
        ("hf-batch-1", "batch of 1", [4], 4, [6], 6),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        B = len(lengths) if lengths else 2
        inputs = {
            "input_ids": token_ids(g, config, 1, (B, T)),
            "encoder_hidden_states": randn(g, B, S, config.hidden_size),
        }
        kwargs = {}
        if lengths:
            inputs["attention_mask"] = attention_mask(lengths, T)
            inputs["encoder_attention_mask"] = attention_mask(source_lengths, S)
            kwargs = {"attention_mask": In("attention_mask"), "encoder_attention_mask": In("encoder_attention_mask")}

        def decode(encoder_hidden_states, inputs=inputs):
            return model(
                input_ids=inputs["input_ids"],
                attention_mask=inputs.get("attention_mask"),
                encoder_hidden_states=encoder_hidden_states,
                encoder_attention_mask=inputs.get("encoder_attention_mask"),
                use_cache=False,
            ).last_hidden_state

        with torch.no_grad():
            expected = decode(inputs["encoder_hidden_states"].double())
        b.add(
            case_id,
            f"against BertModel(is_decoder=True, add_cross_attention=True), {about}",
            "hf",
            "TransformerDecoder",
            init=[config_arg(config)],
            params=params,
            args=[In("input_ids"), In("encoder_hidden_states")],
            kwargs=kwargs,
            outputs=["output"],
            inputs=inputs,
            expected=[expected],
            meta={"lengths": lengths},
            hf_train=lambda upstream, inputs=inputs: hf_trained(
                model,
                decode,
                {"encoder_hidden_states": inputs["encoder_hidden_states"].double()},
                ["output"],
                upstream,
                lambda grads: hf.to_spec(grads, shapes, decoders=("",)),
            ),
        )


def _config_cases(b):
    def layer_inputs(g, c):
        self_mask = torch.ones(5, 5, dtype=torch.bool).tril() & attention_mask([5, 3], 5).bool()[:, None, None, :]
        return {
            "hidden_states": randn(g, 2, 5, c.hidden_size),
            "encoder_hidden_states": randn(g, 2, 7, c.hidden_size),
            "self_mask": self_mask,
            "cross_mask": attention_mask([7, 4], 7).bool()[:, None, None, :],
        }

    def model_inputs(g, c):
        return {
            **odd_tokens(g, c, 2, 6, [6, 4]),
            "encoder_hidden_states": randn(g, 2, 7, c.hidden_size),
            "encoder_attention_mask": attention_mask([7, 5], 7),
        }

    config_case(
        b,
        "TransformerDecoderLayer",
        layer_inputs,
        args=["hidden_states", "encoder_hidden_states", "self_mask", "cross_mask"],
        case_id="odd-config-layer",
    )
    config_case(
        b,
        "TransformerDecoder",
        model_inputs,
        args=["input_ids", "encoder_hidden_states"],
        kwargs=["attention_mask", "encoder_attention_mask"],
    )
