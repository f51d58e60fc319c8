"""The cases of `heads`."""

import torch
from transformers import BertForMaskedLM, BertForSequenceClassification, BertLMHeadModel

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    attention_mask,
    config_arg,
    config_case,
    decoder_config,
    hf_encoder_cases,
    hf_run,
    hf_trained,
    odd_tokens,
    randn,
    token_ids,
)
from autograder.engine.judge import hf


def build(b):
    ids, mask = _hf_inputs(b)
    _lm_head_cases(b, ids, mask)
    _classification_head_case(b, ids, mask)
    hf_encoder_cases(
        b,
        "hf-model",
        "TransformerForSequenceClassification",
        BertForSequenceClassification,
        prefix={"bert.": "encoder."},
        classifier={"": "head."},
        output=lambda out: out.logits,
    )
    _config_cases(b)


def _hf_inputs(b):
    """The token ids and attention mask every seeded head model reads."""
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    return token_ids(g, CONFIG, 1, (2, 6)), attention_mask([6, 4], 6)


def _lm_head_cases(b, ids, mask):
    for case_id, model_class, config in (
        ("hf-masked-lm", BertForMaskedLM, CONFIG),
        ("hf-lm-head-model", BertLMHeadModel, decoder_config(CONFIG, add_cross_attention=False)),
    ):
        model = hf_run(hf.randomize(model_class(config), b.seed(case_id)))
        with torch.no_grad():
            hidden = model(ids, attention_mask=mask, output_hidden_states=True).hidden_states[-1].float()
            logits = model.cls(hidden.double())  # on exactly the float32 input the student gets
        lm_head = head_of(b.spec_shapes("LanguageModelHead", config), "cls.", lm_head={"": ""})
        b.add(
            case_id,
            f"LM head of a seeded {model_class.__name__} on its last hidden state",
            "hf",
            "LanguageModelHead",
            init=[config_arg(CONFIG)],
            params={k: v.float() for k, v in lm_head(model.state_dict()).items()},
            args=[In("hidden_states")],
            outputs=["logits"],
            inputs={"hidden_states": hidden},
            expected=[logits],
            hf_train=lambda upstream, model=model, hidden=hidden, lm_head=lm_head: hf_trained(
                model,
                lambda hidden_states: model.cls(hidden_states),
                {"hidden_states": hidden.double()},
                ["logits"],
                upstream,
                lm_head,
            ),
        )


def _classification_head_case(b, ids, mask):
    model = hf_run(hf.randomize(BertForSequenceClassification(CONFIG), b.seed("hf-classification-head")))
    with torch.no_grad():
        hidden = model.bert(ids, attention_mask=mask).last_hidden_state.float()
        logits = model.classifier(model.bert.pooler(hidden.double()))
    head = head_of(
        b.spec_shapes("SequenceClassificationHead", CONFIG), ("bert.pooler", "classifier"), classifier={"": ""}
    )

    def classify(hidden_states):  # BertForSequenceClassification's own steps after the encoder
        return model.classifier(model.dropout(model.bert.pooler(hidden_states)))

    b.add(
        "hf-classification-head",
        "pooler and classifier of a seeded BertForSequenceClassification",
        "hf",
        "SequenceClassificationHead",
        init=[config_arg(CONFIG)],
        params={k: v.float() for k, v in head(model.state_dict()).items()},
        args=[In("hidden_states")],
        outputs=["logits"],
        inputs={"hidden_states": hidden},
        expected=[logits],
        hf_train=lambda upstream: hf_trained(
            model, classify, {"hidden_states": hidden.double()}, ["logits"], upstream, head
        ),
    )


def _config_cases(b):
    def hidden(g, c):
        return {"hidden_states": randn(g, 2, 6, c.hidden_size)}

    config_case(
        b, "LanguageModelHead", hidden, outputs=["logits"], args=["hidden_states"], case_id="odd-config-lm-head"
    )
    config_case(
        b,
        "SequenceClassificationHead",
        hidden,
        outputs=["logits"],
        args=["hidden_states"],
        case_id="odd-config-classification-head",
    )
    config_case(
        b,
        "TransformerForSequenceClassification",
        lambda g, c: odd_tokens(g, c, 2, 9, [9, 6], types=True),
        outputs=["logits"],
        args=["input_ids"],
        kwargs=["attention_mask", "token_type_ids"],
        case_id="odd-config-model",
    )


def head_of(shapes, prefixes, **mapping):
    """state -> the SPEC-named tensors of a head, from the HF names that start with prefixes."""
    return lambda state: hf.to_spec({k: v for k, v in state.items() if k.startswith(prefixes)}, shapes, None, **mapping)
