"""Hugging Face BERT on one side, the SPEC's names on the other: the one place that maps between them.

Used to build fixtures, to check the reference, and for pretrained parity; never while grading an
ordinary submission, since importing transformers alone costs more than grading does.
"""

import re
from collections.abc import Collection, Mapping, Sequence
from types import SimpleNamespace
from typing import Any, TypeVar

import torch
from transformers import BertConfig

_Module = TypeVar("_Module", bound=torch.nn.Module)

SPEC_CONFIG_KEYS = (
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "max_position_embeddings",
    "type_vocab_size",
    "layer_norm_eps",
    "num_labels",
    # Not in the SPEC's list, but BertConfig has it, and a student copying BERT's embeddings may read it.
    "pad_token_id",
)

# (HF name pattern, SPEC name) in BertModel's own terms; a prefix is added per model below.
_LAYER = r"encoder\.layer\.(\d+)\."
_BERT_RULES = (
    (r"embeddings\.word_embeddings\.", "embeddings.token_embeddings."),
    (r"embeddings\.position_embeddings\.", "embeddings.position_embeddings."),
    (r"embeddings\.token_type_embeddings\.", "embeddings.token_type_embeddings."),
    (r"embeddings\.LayerNorm\.", "embeddings.layer_norm."),
    (_LAYER + r"attention\.self\.(query|key|value)\.", r"layers.\1.{self}.\2."),
    (_LAYER + r"attention\.output\.dense\.", r"layers.\1.{self}.output."),
    (_LAYER + r"attention\.output\.LayerNorm\.", r"layers.\1.{self}_norm."),
    (_LAYER + r"crossattention\.self\.(query|key|value)\.", r"layers.\1.cross_attention.\2."),
    (_LAYER + r"crossattention\.output\.dense\.", r"layers.\1.cross_attention.output."),
    (_LAYER + r"crossattention\.output\.LayerNorm\.", r"layers.\1.cross_attention_norm."),
    (_LAYER + r"intermediate\.dense\.", r"layers.\1.feed_forward.linear1."),
    (_LAYER + r"output\.dense\.", r"layers.\1.feed_forward.linear2."),
    (_LAYER + r"output\.LayerNorm\.", r"layers.\1.output_norm."),
)
_LM_HEAD_RULES = (
    (r"cls\.predictions\.transform\.dense\.", "dense."),
    (r"cls\.predictions\.transform\.LayerNorm\.", "layer_norm."),
    (r"cls\.predictions\.decoder\.", "decoder."),
)
_CLASSIFIER_RULES = ((r"bert\.pooler\.dense\.", "pooler."), (r"classifier\.", "classifier."))
# HF keeps the output bias twice (tied to decoder.bias); the pooler is unused by an encoder alone.
_IGNORED = re.compile(r"(^|\.)(cls\.predictions\.bias|pooler\.dense\.(weight|bias))$")


def bert_config(**overrides: object) -> BertConfig:
    """A small BertConfig for offline parity checks (eager attention, so attention weights come back)."""
    values: dict[str, Any] = dict(
        vocab_size=40,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=24,
        type_vocab_size=2,
        layer_norm_eps=1e-12,
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
        num_labels=3,
    )
    values.update(overrides)
    # call-arg: BertConfig's __init__ as written lists no **kwargs, but the class is wrapped to take every
    # PreTrainedConfig keyword too, attn_implementation among them.
    return BertConfig(attn_implementation="eager", **values)  # type: ignore[call-arg]


# What of a BertConfig stays behind when it crosses to the child: what names the library's version or a file,
# which would tie the fixtures to the installed transformers, and its label maps.
NOT_CROSSING = ("transformers_version", "_name_or_path", "architectures", "dtype", "id2label", "label2id")


def spec_config(config: BertConfig) -> dict[str, object]:
    """A BertConfig as plain data, as it crosses to the child: the SPEC's keys and every other plain value a
    BERT-faithful implementation may read (hidden_act, classifier_dropout, pad_token_id, is_decoder, the
    attention implementation), so that the child's config has BertConfig's attributes without importing
    transformers there, which would cost more than grading does."""
    values = {
        key: value
        for key, value in config.to_dict().items()
        if key not in NOT_CROSSING and (value is None or isinstance(value, (bool, int, float, str)))
    }
    return {
        **values,
        **{key: getattr(config, key) for key in SPEC_CONFIG_KEYS},
        "_attn_implementation": config._attn_implementation,
    }


def spec_shapes(module_class: type[torch.nn.Module], *configs: BertConfig) -> dict[str, tuple[int, ...]]:
    """{SPEC name: shape} of a SPEC module class built from these BertConfigs, for to_spec to check against."""
    module = module_class(*(SimpleNamespace(**spec_config(config)) for config in configs))
    return {k: tuple(v.shape) for k, v in module.state_dict().items()}


def randomize(model: _Module, seed: int) -> _Module:
    """Give every parameter a seeded, O(1) value, so that no mistake hides behind HF's initial values.

    HF starts layer norms at weight 1, bias 0 and linear layers near 0; a missing bias or a swapped
    weight would go unnoticed. Values are rounded to float32 so float32 and float64 runs see the same.
    """
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator, dtype=torch.float64)
            if name.endswith("weight") and param.dim() == 1:  # a layer norm's gain
                value = 1 + 0.2 * noise
            elif name.endswith("bias"):
                value = 0.2 * noise
            elif param.dim() == 2 and "embeddings" not in name:
                value = noise / param.shape[1] ** 0.5  # keeps activations O(1) through every layer
            else:
                value = noise
            param.copy_(value.float())
    return model


def untie(model: _Module) -> _Module:
    """Give each parameter that several modules share (the LM head's decoder and the word embeddings) a copy
    of its own, with the same values: the SPEC's modules hold one in each place, and each gets its own
    gradient. The first module to hold it keeps the original."""
    seen = set()
    for module in model.modules():
        for name, param in list(module.named_parameters(recurse=False)):
            if id(param) in seen:
                setattr(module, name, torch.nn.Parameter(param.detach().clone()))
            seen.add(id(param))
    return model


def to_spec(
    hf_state: Mapping[str, torch.Tensor],
    spec_shapes: Mapping[str, Sequence[int]],
    prefix: str | Mapping[str, str] | None = "",
    *,
    decoders: Collection[str] = (),
    lm_head: str | Mapping[str, str] | None = None,
    classifier: str | Mapping[str, str] | None = None,
) -> dict[str, torch.Tensor]:
    """Rename an HF state dict to SPEC names and check it against the SPEC module's parameter shapes.

    Args:
        hf_state: the HF model's state_dict().
        spec_shapes: {SPEC name: shape} of the module being filled (from a reference module).
        prefix: {HF prefix: SPEC prefix} of each BertModel inside hf_state, e.g. {"bert.": "encoder."};
            "" for a bare BertModel.
        decoders: the HF prefixes whose BertModel is a decoder (its self-attention is self_attention).
        lm_head / classifier: {HF prefix: SPEC prefix} of the module holding `cls.` or `classifier.`.

    Returns:
        {SPEC name: tensor}, exactly spec_shapes' names, every shape asserted.
    """
    rules: list[tuple[str, str]] = []
    for hf_prefix, spec_prefix in _as_pairs(prefix):
        self_name = "self_attention" if hf_prefix in decoders else "attention"
        for pattern, replacement in _BERT_RULES:
            rules.append((re.escape(hf_prefix) + pattern, spec_prefix + replacement.replace("{self}", self_name)))
    for table, where in ((_LM_HEAD_RULES, lm_head), (_CLASSIFIER_RULES, classifier)):
        for hf_prefix, spec_prefix in _as_pairs(where):
            rules += [(re.escape(hf_prefix) + p, spec_prefix + r) for p, r in table]
    result = {}
    for hf_name, tensor in hf_state.items():
        if hf_name.endswith(("position_ids", "token_type_ids")):
            continue  # buffers, not weights
        spec_name = _rename(hf_name, rules)
        if spec_name is None:
            if _IGNORED.search(hf_name):
                continue
            raise KeyError(f"no SPEC name for Hugging Face parameter {hf_name}")
        if spec_name not in spec_shapes:
            continue  # a part the SPEC module does not have (a decoder's pooler, say)
        if tuple(tensor.shape) != tuple(spec_shapes[spec_name]):
            raise ValueError(
                f"{hf_name} has shape {tuple(tensor.shape)}, but {spec_name} needs {tuple(spec_shapes[spec_name])}"
            )
        result[spec_name] = tensor
    missing = sorted(set(spec_shapes) - set(result))
    if missing:
        raise KeyError(f"Hugging Face state has nothing for {', '.join(missing)}")
    return result


def _as_pairs(mapping: str | Mapping[str, str] | None) -> list[tuple[str, str]]:
    if mapping is None:
        return []
    if isinstance(mapping, str):
        return [(mapping, "")]
    return list(mapping.items())


def _rename(name: str, rules: list[tuple[str, str]]) -> str | None:
    for pattern, replacement in rules:
        if re.match(pattern, name):
            return re.sub(pattern, replacement, name, count=1)
    return None
