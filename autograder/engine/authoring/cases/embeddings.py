"""The cases of `embeddings`."""

import torch
from transformers import BertModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    config_arg,
    config_case,
    hf_run,
    hf_trained,
    odd_tokens,
    part_of,
    random_params,
    token_ids,
)
from autograder.engine.judge import hf


def build(b):
    _reference_cases(b)
    _hf_cases(b)
    config_case(
        b,
        "Embeddings",
        lambda g, c: odd_tokens(g, c, 2, c.max_position_embeddings, types=True),
        args=["input_ids", "token_type_ids"],
    )
    _sinusoidal_cases(b)


def _reference_cases(b):
    init = [config_arg(CONFIG)]
    cases = [
        ("no-token-types", "ids (2, 6), token types left out", (2, 6), False),
        ("token-types", "ids (2, 7) with token types 0 and 1", (2, 7), True),
        ("full-length", "one sequence as long as max_position_embeddings", (1, CONFIG.max_position_embeddings), True),
    ]
    for case_id, about, shape, types in cases:
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {"input_ids": token_ids(g, CONFIG, 0, shape)}
        args = [In("input_ids")]
        if types:
            inputs["token_type_ids"] = torch.randint(0, CONFIG.type_vocab_size, shape, generator=g)
            args.append(In("token_type_ids"))
        b.add(
            case_id,
            about,
            "reference",
            "Embeddings",
            init=init,
            params=random_params(b.reference["Embeddings"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )


def _hf_cases(b):
    model = hf_run(hf.randomize(BertModel(CONFIG), b.seed("hf")))
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    ids = token_ids(g, CONFIG, 0, (3, 8))
    types = torch.randint(0, CONFIG.type_vocab_size, (3, 8), generator=g)
    embedding = part_of(b.spec_shapes("TransformerEncoder", CONFIG), "embeddings.")
    params = {k: v.float() for k, v in embedding(model.state_dict()).items()}
    for case_id, args, inputs in (
        ("hf-token-types", [In("input_ids"), In("token_type_ids")], {"input_ids": ids, "token_type_ids": types}),
        ("hf-no-token-types", [In("input_ids")], {"input_ids": ids}),
    ):
        given = inputs.get("token_type_ids")

        def embed(token_type_ids=given):
            return model.embeddings(input_ids=ids, token_type_ids=token_type_ids)

        with torch.no_grad():
            expected = embed()
        b.add(
            case_id,
            "BertModel's embeddings, seeded weights",
            "hf",
            "Embeddings",
            init=[config_arg(CONFIG)],
            params=params,
            args=args,
            outputs=["output"],
            inputs=inputs,
            expected=[expected],
            hf_train=lambda upstream: hf_trained(model, embed, {}, ["output"], upstream, embedding),
        )


def _sinusoidal_cases(b):
    # An odd d_model as well: the formula defines it (the last column is a sine), and pairing code fails there.
    for max_len, d_model in ((10, 16), (50, 32), (1, 4), (24, 6), (9, 7)):
        b.add(
            f"sinusoidal-{max_len}x{d_model}",
            f"sinusoidal_positional_encoding({max_len}, {d_model})",
            "sinusoidal",
            "sinusoidal_positional_encoding",
            args=[max_len, d_model],
            outputs=["table"],
            inputs={},
            dtypes=[None],
        )
