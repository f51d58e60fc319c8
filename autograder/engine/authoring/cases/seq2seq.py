"""The cases of `seq2seq`."""

import torch
from transformers import BertLMHeadModel, BertModel, EncoderDecoderModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    attention_mask,
    config_arg,
    decoder_config,
    hf_run,
    hf_trained,
    token_ids,
)
from autograder.engine.contract import messages
from autograder.engine.judge import hf


def build(b):
    enc_config = CONFIG
    dec_config = decoder_config(CONFIG, vocab_size=36, num_hidden_layers=1)
    init = [config_arg(enc_config), config_arg(dec_config)]
    model = hf_run(
        hf.randomize(
            EncoderDecoderModel(encoder=BertModel(enc_config), decoder=BertLMHeadModel(dec_config)), b.seed("hf")
        )
    )
    shapes = b.spec_shapes("Seq2SeqTransformer", enc_config, dec_config)

    def named(state):
        return hf.to_spec(
            state,
            shapes,
            {"encoder.": "encoder.", "decoder.bert.": "decoder."},
            decoders=("decoder.bert.",),
            lm_head={"decoder.": "lm_head."},
        )

    params = {k: v.float() for k, v in named(model.state_dict()).items()}
    for case_id, about, source, target in (
        ("hf-masks", "source and target padding", [7, 3], [5, 3]),
        ("hf-no-masks", "no masks", None, None),
        ("hf-batch-1", "batch of 1", [6], [4]),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        B = len(source) if source else 2
        S, T = (max(source), max(target)) if source and target else (6, 5)
        inputs = {
            "input_ids": token_ids(g, enc_config, 1, (B, S)),
            "decoder_input_ids": token_ids(g, dec_config, 1, (B, T)),
        }
        kwargs = {}
        if source:
            inputs["attention_mask"] = attention_mask(source, S)
            inputs["decoder_attention_mask"] = attention_mask(target, T)
            kwargs = {"attention_mask": In("attention_mask"), "decoder_attention_mask": In("decoder_attention_mask")}

        def translate(inputs=inputs):
            return model(**inputs, use_cache=False).logits

        with torch.no_grad():
            expected = translate()
        b.add(
            case_id,
            f"against EncoderDecoderModel(BertModel, BertLMHeadModel), {about}",
            "hf",
            "Seq2SeqTransformer",
            init=init,
            params=params,
            args=[In("input_ids"), In("decoder_input_ids")],
            kwargs=kwargs,
            outputs=["logits"],
            inputs=inputs,
            expected=[expected],
            meta={"target_lengths": target},
            hf_train=lambda upstream: hf_trained(model, translate, {}, ["logits"], upstream, named),
        )
    greedy_cases(b, model, init, params, dec_config)


def greedy_cases(b, model, init, params, dec_config):
    """generate() cases whose rows stop at EOS at different steps; each arg-max wins by a clear margin.

    The pad id is one the model never emits on its own, so leaving finished rows unpadded shows.
    """
    bos, max_new = 1, 10
    found = {}
    for attempt in range(200):
        g = torch.Generator().manual_seed(b.seed(f"greedy-{attempt}"))
        source = torch.randint(2, CONFIG.vocab_size, (3, 6), generator=g)
        mask = attention_mask([6, 5, 3], 6)
        free = _generate(model, source, mask, bos, 0, eos=None, max_new=max_new)  # (3, 1 + max_new)
        unused = sorted(set(range(2, dec_config.vocab_size)) - set(free.flatten().tolist()))
        if _margin(model, source, mask, free) < 1e-2 or not unused:
            continue
        pad = unused[0]
        for eos in range(2, dec_config.vocab_size):
            firsts = [_first(row[1:], eos) for row in free.tolist()]
            if "all-stop" not in found and None not in firsts and len(set(firsts)) == 3 and max(firsts) < max_new - 1:
                found["all-stop"] = (source, mask, eos, pad, "every row emits EOS, each at a different step")
            if (
                "some-run-out" not in found
                and firsts.count(None) == 1
                and len({f for f in firsts if f is not None}) == 2
            ):
                found["some-run-out"] = (source, mask, eos, pad, "two rows emit EOS at different steps, one never does")
        if len(found) == 2:
            break
    for name, (source, mask, eos, pad, about) in sorted(found.items()):
        expected = _generate(model, source, mask, bos, pad, eos=eos, max_new=max_new)
        b.add(
            f"generate-{name}",
            f"against generate(): {about}",
            "generate",
            "greedy_decode",
            args=[{messages.OBJECT: "model"}, In("input_ids"), In("attention_mask")],
            kwargs=dict(bos_token_id=bos, eos_token_id=eos, pad_token_id=pad, max_new_tokens=max_new),
            outputs=["tokens"],
            inputs={"input_ids": source, "attention_mask": mask},
            expected=[expected],
            meta={"model": {"target": "Seq2SeqTransformer", "init": init}},
            params=params,
        )
    if len(found) != 2:
        raise RuntimeError(f"no seed gave every kind of greedy case: found only {sorted(found)}")


def _generate(model, source, mask, bos, pad, eos, max_new):
    with torch.no_grad():
        return model.generate(
            input_ids=source,
            attention_mask=mask,
            decoder_start_token_id=bos,
            pad_token_id=pad,
            eos_token_id=eos,
            max_new_tokens=max_new,
            do_sample=False,
            num_beams=1,
        )


def _first(row, token):
    return row.index(token) if token in row else None


def _margin(model, source, mask, tokens):
    """The smallest gap between the best and second-best next token along the generated sequences."""
    with torch.no_grad():
        logits = model(input_ids=source, attention_mask=mask, decoder_input_ids=tokens[:, :-1], use_cache=False).logits
    top = logits.topk(2, dim=-1).values
    return (top[..., 0] - top[..., 1]).min().item()
