"""Build the hidden suites' cases: seeded inputs, and expected values from real models.

Expected values come from the reference run in float64 ("reference" cases) or from Hugging Face BERT
run in float64 with seeded weights ("hf" cases). Every float input and weight is rounded to float32
first, so a float32 run and the float64 truth see exactly the same numbers.
"""

import contextlib
import json
import math
import zlib
from dataclasses import dataclass

import numpy as np
import torch
from transformers import BertForMaskedLM, BertForSequenceClassification, BertLMHeadModel, BertModel, EncoderDecoderModel

from autograder.engine.build import evidence
from autograder.engine.child import runtime, training
from autograder.engine.contract import loader, messages, spec
from autograder.engine.judge import hf
from autograder.engine.judge.fixtures import FLOATS, HERE

# The two dropout probabilities differ, so that train mode shows one used in the other's place.
CONFIG = hf.bert_config(hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.2)
# Every size a student might hard-code differs from CONFIG's and from the usual defaults (H=4 or 12,
# F=4D, 512 positions, 2 token types, eps 1e-12 or 1e-5, dropout 0.1): read from a config, each is right
# only if read from this one. eps is large enough that a layer norm built without it misses by far more
# than the float32 tolerance.
ODD_CONFIG = hf.bert_config(
    vocab_size=31,
    hidden_size=30,
    num_hidden_layers=3,
    num_attention_heads=5,
    intermediate_size=50,
    max_position_embeddings=13,
    type_vocab_size=3,
    layer_norm_eps=0.05,
    num_labels=5,
    pad_token_id=4,
    hidden_dropout_prob=0.3,
    attention_probs_dropout_prob=0.15,
)
# In train mode, multi-head attention is graded on its output alone: BERT returns its attention weights after
# dropout, the reference before it, and either is right (SPEC leaves it open); training uses the output only.
MULTIHEAD_TRAINED = ["output"]
ODD_ABOUT = "a config unlike the others: D=30, H=5 (Dh=6), F=50, 3 layers, 13 positions, 3 token types, eps 0.05"


@dataclass(frozen=True)
class In:
    """An argument filled from the case's inputs."""

    name: str


def reference():
    return runtime.load_reference(loader.load(spec.SOLUTIONS).as_message(), spec.ALL_NAMES)


REF = None


class Builder:
    def __init__(self, component, public=False):
        self.component = component
        self.public = public
        self.metas = []
        self.arrays = {}

    def seed(self, case_id):
        """The public checks' cases are the hidden ones drawn from other seeds: the same kinds and shapes, so
        that they catch the same mistakes, and none of the same numbers."""
        return zlib.crc32(f"{'public/' if self.public else ''}{self.component}/{case_id}".encode())

    def add(
        self,
        case_id,
        about,
        kind,
        target,
        *,
        args,
        outputs,
        inputs,
        init=None,
        kwargs=None,
        params=None,
        expected=None,
        dtypes=FLOATS,
        meta=None,
        train_outputs=None,
        hf_train=None,
    ):
        """One case. Its expected values come from the reference in float64 unless given (from HF).

        Where it has float outputs and something to train (weights, or float inputs), it is also graded in
        train mode: train_outputs (all its float outputs unless given) each get a seeded upstream gradient,
        and what train mode gives comes from hf_train(upstream) where given, else from the reference.
        """
        kwargs = kwargs or {}
        if expected is None:
            expected = run_reference(target, init, params, args, kwargs, inputs)
        expected = dict(zip(outputs, expected))
        if train_outputs is None:
            train_outputs = [name for name in outputs if _stored(expected[name], "expected").dtype.kind == "f"]
        upstream, trained = {}, {}
        if train_outputs and (init is not None or any(_is_float(v) for v in inputs.values())):
            g = torch.Generator().manual_seed(self.seed(f"{case_id}/upstream"))
            # Unit norm per output, as a loss averaged over its elements would give, so that the gradients are
            # O(1) like the values graded beside them: float32's elementwise tolerance is made for O(1) values.
            # N(0, 1) per element made gradients up to 300 in size, whose small elements (sums that cancel)
            # used up to half of their tolerance on float32's rounding alone (benchmarks/tolerance_headroom.py).
            upstream = {
                name: randn(g, *expected[name].shape) / math.sqrt(math.prod(expected[name].shape))
                for name in train_outputs
            }
            trained = (
                hf_train(upstream)
                if hf_train
                else run_reference_train(target, init, params, args, kwargs, inputs, outputs, upstream)
            )
        self.metas.append(
            dict(
                id=case_id,
                about=about,
                kind=kind,
                target=target,
                init=init,
                args=[_ref(a) for a in args],
                kwargs={k: _ref(v) for k, v in kwargs.items()},
                outputs=list(outputs),
                dtypes=list(dtypes),
                meta=meta or {},
            )
        )
        groups = {
            "params": params or {},
            "inputs": inputs,
            "expected": expected,
            "upstream": upstream,
            "trained": trained,
        }
        for group, values in groups.items():
            for name, value in values.items():
                self.arrays[f"{case_id}/{group}/{name}"] = _stored(value, group)

    def write(self, folder):
        (folder / f"{self.component}.json").write_text(json.dumps(self.metas, indent=1) + "\n")
        np.savez_compressed(folder / f"{self.component}.npz", **self.arrays)


def _ref(value):
    return {messages.INPUT: value.name} if isinstance(value, In) else value


def _stored(value, group):
    array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
    if array.dtype.kind == "f":
        return array.astype(np.float64 if group in ("expected", "trained") else np.float32)
    return array


def _is_float(value):
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def config_arg(config):
    return {messages.CONFIG: hf.spec_config(config)}


def run_reference(target, init, params, args, kwargs, inputs):
    """The reference's outputs in float64, as a list."""
    obj, args, kwargs = _reference_call(target, init, params, args, kwargs, inputs)
    with float64(), torch.no_grad():
        out = obj(*args, **kwargs)
    return list(out) if isinstance(out, tuple) else [out]


def run_reference_train(target, init, params, args, kwargs, inputs, outputs, upstream):
    """What the reference gives in train mode, in float64: {output: value} for the outputs upstream names,
    and {"NAME.grad": gradient} of every float input and every parameter."""
    obj, values, keywords = _reference_call(target, init, params, args, kwargs, inputs)
    with float64():
        result, values, keywords, _ = training.run(obj, values, keywords, [upstream.get(name) for name in outputs])
    trained = {name: value for name, value in zip(outputs, training.outputs(result)) if name in upstream}
    for arg, value in [*zip(args, values), *((kwargs[k], keywords[k]) for k in kwargs)]:
        if isinstance(arg, In) and _is_float(value):
            trained[f"{arg.name}.grad"] = value.grad
    if isinstance(obj, torch.nn.Module):
        trained.update({f"{name}.grad": grad for name, grad in training.parameter_gradients(obj).items()})
    return trained


def _reference_call(target, init, params, args, kwargs, inputs):
    """The reference's target (built, with its weights, in float64) and the call's arguments in float64."""
    obj = REF[target]
    if init is not None:
        obj = evidence.instantiate(obj, init)
        if params is not None:
            obj.load_state_dict({k: torch.as_tensor(v) for k, v in params.items()}, strict=True)
        obj = obj.double().eval()

    def fill(value):
        if isinstance(value, In):
            tensor = torch.as_tensor(inputs[value.name])
            return tensor.double() if tensor.is_floating_point() else tensor
        return value

    return obj, [fill(a) for a in args], {k: fill(v) for k, v in kwargs.items()}


@contextlib.contextmanager
def float64():
    """New tensors in float64, as the reference's own run makes them."""
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)


def hf_trained(model, call, leaves, outputs, upstream, to_spec):
    """What a Hugging Face model gives in train mode, with dropout's stand-in, in the kit's names.

    call(**leaves) runs the model and returns the outputs named by outputs; leaves are its float inputs,
    whose gradients are kept as "NAME.grad"; to_spec renames {HF parameter name: gradient} to SPEC names.
    Tied parameters are untied first (hf.untie), since the SPEC's modules hold a copy in each place.
    The model is back in eval mode afterwards.
    """
    hf.untie(model)
    try:
        result, _, leaves, _ = training.run(call, [], leaves, [upstream.get(name) for name in outputs], module=model)
    finally:
        model.eval()
    trained = {name: value for name, value in zip(outputs, training.outputs(result)) if name in upstream}
    trained.update({f"{name}.grad": value.grad for name, value in leaves.items()})
    grads = {name: torch.zeros_like(p) if p.grad is None else p.grad for name, p in model.named_parameters()}
    trained.update({f"{name}.grad": grad for name, grad in to_spec(grads).items()})
    return trained


def randn(generator, *shape, scale=1.0, shift=0.0):
    """float32-exact normal values."""
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * scale + shift).float()


def attention_mask(lengths, total, left=False):
    """HF 0/1 mask (B, total) with the given number of real tokens per row."""
    positions = torch.arange(total)
    if left:
        return (positions[None, :] >= (total - torch.tensor(lengths))[:, None]).long()
    return (positions[None, :] < torch.tensor(lengths)[:, None]).long()


def random_params(module_class, init, seed):
    """Seeded O(1) parameters for a reference module, by SPEC name."""
    module = hf.randomize(evidence.instantiate(module_class, init), seed)
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def spec_shapes(target, *configs):
    return hf.spec_shapes(REF[target], *configs)


def hf_run(model):
    return model.double().eval()


# --- components -------------------------------------------------------------------------------


def attention(b):
    shapes = [
        ("3d-no-mask", "3-D (B=2, T=5, Dh=8), no mask", (2,), 5, 5, 8, 8, None),
        ("3d-T-ne-S-Dv-ne-Dh", "3-D, T=4 queries, S=7 keys, Dv=6", (3,), 4, 7, 8, 6, None),
        ("3d-TxS-mask", "3-D with a (T, S) mask", (2,), 5, 6, 8, 8, "TS"),
        ("4d-no-mask", "4-D (B=2, H=4, T=5, Dh=8), no mask", (2, 4), 5, 5, 8, 8, None),
        ("4d-causal-mask", "4-D with a causal (T, T) mask", (2, 4), 6, 6, 8, 8, "causal"),
        ("4d-padding-mask", "4-D, T=5, S=7, (B, 1, 1, S) padding mask", (2, 4), 5, 7, 8, 8, "padding"),
        ("4d-full-mask", "4-D with a (B, 1, T, S) mask", (2, 3), 5, 7, 8, 8, "full"),
        ("batch-1", "4-D, batch of 1, (B, 1, 1, S) mask", (1, 2), 3, 4, 8, 8, "padding"),
    ]
    for case_id, about, lead, T, S, dh, dv, mask_kind in shapes:
        g = torch.Generator().manual_seed(b.seed(case_id))
        inputs = {
            "query": randn(g, *lead, T, dh, scale=1.5),
            "key": randn(g, *lead, S, dh, scale=1.5),
            "value": randn(g, *lead, S, dv),
        }
        if mask_kind:
            inputs["mask"] = _mask(g, mask_kind, lead[0], T, S)
        args = [In("query"), In("key"), In("value")] + ([In("mask")] if mask_kind else [])
        b.add(
            case_id,
            about,
            "reference",
            "scaled_dot_product_attention",
            args=args,
            outputs=["output", "weights"],
            inputs=inputs,
        )


def _mask(g, kind, B, T, S):
    """A boolean mask in which every query row keeps at least one key (all-blocked rows are never graded)."""
    if kind == "causal":
        return torch.ones(T, S, dtype=torch.bool).tril()
    if kind == "padding":
        lengths = torch.randint(1, S + 1, (B,), generator=g)
        lengths[0] = S - 2
        return attention_mask(lengths.tolist(), S).bool()[:, None, None, :]
    shape = (T, S) if kind == "TS" else (B, 1, T, S)
    mask = torch.rand(shape, generator=g) < 0.6
    mask[..., 0] = True
    return mask


def masking(b):
    for size in (1, 4, 9):
        b.add(
            f"causal-{size}",
            f"causal_mask({size})",
            "causal",
            "causal_mask",
            args=[size],
            outputs=["mask"],
            inputs={},
            dtypes=[None],
        )
    for case_id, lengths, total in (
        ("padding-2x5", [5, 3], 5),
        ("padding-3x7", [7, 1, 4], 7),
        ("padding-no-pad", [4], 4),
    ):
        inputs = {"attention_mask": attention_mask(lengths, total)}
        b.add(
            case_id,
            f"padding_mask of a ({len(lengths)}, {total}) mask, lengths {lengths}",
            "padding",
            "padding_mask",
            args=[In("attention_mask")],
            outputs=["mask"],
            inputs=inputs,
            dtypes=[None],
        )


def layernorm(b):
    cases = [
        ("3d", "x (2, 5, 32), random weight and bias", (2, 5, 32), [32], "reference"),
        ("2d", "x (7, 16)", (7, 16), [16], "reference"),
        ("4d", "x (2, 3, 4, 16)", (2, 3, 4, 16), [16], "reference"),
        (
            "large-eps",
            "eps=0.5, large enough that which eps is used, and where, shows in the answer",
            (2, 5, 32),
            [32, 0.5],
            "large-eps",
        ),
        ("fresh-module", "a new LayerNorm(32) without loaded weights: weight 1, bias 0", (3, 4, 32), [32], "fresh"),
    ]
    for case_id, about, shape, init, kind in cases:
        g = torch.Generator().manual_seed(b.seed(case_id))
        params = None
        if kind != "fresh":
            params = {"weight": randn(g, shape[-1], scale=0.3, shift=1.0), "bias": randn(g, shape[-1], scale=0.3)}
        b.add(
            case_id,
            about,
            kind,
            "LayerNorm",
            init=init,
            params=params,
            args=[In("x")],
            outputs=["output"],
            inputs={"x": randn(g, *shape, scale=2.0, shift=0.5)},
        )


def multihead(b):
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
            inputs["mask"] = _mask(g, mask_kind, B, T, S or T)
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
            params=random_params(REF["MultiHeadAttention"], init, b.seed(case_id)),
            args=[In("hidden_states")],
            kwargs=kwargs,
            outputs=["output", "weights"],
            inputs=inputs,
            train_outputs=MULTIHEAD_TRAINED,
        )

    config_case(
        b,
        "MultiHeadAttention",
        lambda g, c: {"hidden_states": randn(g, 2, 6, c.hidden_size), "mask": _mask(g, "padding", 2, 6, 6)},
        outputs=["output", "weights"],
        args=["hidden_states"],
        kwargs=["mask"],
        train_outputs=MULTIHEAD_TRAINED,
    )

    # Layer 0 of a BertModel: weights against output_attentions, output against the attention's output dense.
    model = hf_run(hf.randomize(BertModel(CONFIG), b.seed("hf")))
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    input_ids = torch.randint(0, CONFIG.vocab_size, (2, 6), generator=g)
    mask = attention_mask([6, 4], 6)
    captured = {}
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
    layer_0 = part_of(spec_shapes("TransformerEncoder", CONFIG), "layers.0.attention.")
    attention = model.encoder.layer[0].attention
    additive = (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float64).min  # HF's own mask

    def attend(hidden_states):
        return attention.output.dense(attention.self(hidden_states, attention_mask=additive)[0])

    b.add(
        "hf-bert-layer-0",
        "layer 0 of a seeded BertModel on its own embeddings, padding mask",
        "hf",
        "MultiHeadAttention",
        init=init,
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


def part_of(shapes, prefix, **mapping):
    """state -> the SPEC-named tensors of BertModel's state under prefix (a SPEC prefix), without it."""
    return lambda state: {
        k.removeprefix(prefix): v for k, v in hf.to_spec(state, shapes, **mapping).items() if k.startswith(prefix)
    }


def feedforward(b):
    init = [config_arg(CONFIG)]
    for case_id, about, shape in (
        ("3d", "x (2, 5, D), large enough that GELU approximations differ", (2, 5, 32)),
        ("batch-1", "x (1, 3, D)", (1, 3, 32)),
        ("single-position", "x (3, 1, D)", (3, 1, 32)),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        b.add(
            case_id,
            about,
            "reference",
            "FeedForward",
            init=init,
            params=random_params(REF["FeedForward"], init, b.seed(case_id)),
            args=[In("x")],
            outputs=["output"],
            inputs={"x": randn(g, *shape, scale=2.0)},
        )
    config_case(b, "FeedForward", lambda g, c: {"x": randn(g, 2, 4, c.hidden_size, scale=2.0)}, args=["x"])


def config_case(
    b,
    target,
    inputs,
    outputs=("output",),
    args=(),
    kwargs=(),
    case_id="odd-config",
    about=ODD_ABOUT,
    train_outputs=None,
):
    """A case of target built from ODD_CONFIG, expected values from the reference; inputs(generator, config)."""
    init = [config_arg(ODD_CONFIG)]
    g = torch.Generator().manual_seed(b.seed(case_id))
    b.add(
        case_id,
        about,
        "config",
        target,
        init=init,
        params=random_params(REF[target], init, b.seed(case_id)),
        args=[In(name) for name in args],
        kwargs={name: In(name) for name in kwargs},
        outputs=list(outputs),
        inputs=inputs(g, ODD_CONFIG),
        train_outputs=train_outputs,
    )


def token_ids(g, config, low, shape):
    """Token ids in [low, vocab_size), none of them the pad token: BERT builds its token table with
    nn.Embedding(padding_idx=pad_token_id), which keeps the pad row's gradient at zero, and the SPEC leaves
    that choice open, so no case asks for the pad row's gradient."""
    ids = torch.randint(low, config.vocab_size, shape, generator=g)
    return torch.where(
        ids == config.pad_token_id, (config.pad_token_id + 1 - low) % (config.vocab_size - low) + low, ids
    )


def odd_tokens(g, c, B, T, lengths=None, types=False):
    """Token ids (and, when asked, a 0/1 attention mask and token types) for a config c."""
    inputs = {"input_ids": token_ids(g, c, 1, (B, T))}
    if lengths:
        inputs["attention_mask"] = attention_mask(lengths, T)
    if types:
        inputs["token_type_ids"] = torch.randint(0, c.type_vocab_size, (B, T), generator=g)
    return inputs


def embeddings(b):
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
            params=random_params(REF["Embeddings"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )

    model = hf_run(hf.randomize(BertModel(CONFIG), b.seed("hf")))
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    ids = token_ids(g, CONFIG, 0, (3, 8))
    types = torch.randint(0, CONFIG.type_vocab_size, (3, 8), generator=g)
    embedding = part_of(spec_shapes("TransformerEncoder", CONFIG), "embeddings.")
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
            init=init,
            params=params,
            args=args,
            outputs=["output"],
            inputs=inputs,
            expected=[expected],
            hf_train=lambda upstream: hf_trained(model, embed, {}, ["output"], upstream, embedding),
        )

    config_case(
        b,
        "Embeddings",
        lambda g, c: odd_tokens(g, c, 2, c.max_position_embeddings, types=True),
        args=["input_ids", "token_type_ids"],
    )

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


def encoder(b):
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
            inputs["mask"] = _mask(g, "padding", B, T, T)
            args.append(In("mask"))
        b.add(
            case_id,
            about,
            "reference",
            "TransformerEncoderLayer",
            init=init,
            params=random_params(REF["TransformerEncoderLayer"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )
    hf_encoder_cases(b, "hf", "TransformerEncoder", BertModel, prefix="")
    config_case(
        b,
        "TransformerEncoderLayer",
        lambda g, c: {"hidden_states": randn(g, 2, 5, c.hidden_size), "mask": _mask(g, "padding", 2, 5, 5)},
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


def hf_encoder_cases(b, kind, target, model_class, prefix, classifier=None, output=lambda out: out.last_hidden_state):
    """A seeded BERT model against the SPEC class target, over padding, token types and batch sizes."""
    config = CONFIG
    model = hf_run(hf.randomize(model_class(config), b.seed(kind)))
    shapes = spec_shapes(target, config)
    params = {k: v.float() for k, v in hf.to_spec(model.state_dict(), shapes, prefix, classifier=classifier).items()}
    for case_id, about, lengths, T, types, left in (
        ("hf-padding", "right padding, lengths 7, 4, 2", [7, 4, 2], 7, False, False),
        ("hf-left-padding", "left padding, lengths 6, 3", [6, 3], 6, False, True),
        ("hf-token-types", "token types and padding", [8, 5], 8, True, False),
        ("hf-no-mask", "no attention_mask at all", None, 5, False, False),
        (
            "hf-batch-1",
            "batch of 1, full length",
            [CONFIG.max_position_embeddings],
            CONFIG.max_position_embeddings,
            False,
            False,
        ),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        B = len(lengths) if lengths else 2
        inputs = {"input_ids": token_ids(g, config, 1, (B, T))}
        kwargs = {}
        if lengths:
            inputs["attention_mask"] = attention_mask(lengths, T, left)
            kwargs["attention_mask"] = In("attention_mask")
        if types:
            inputs["token_type_ids"] = torch.randint(0, config.type_vocab_size, (B, T), generator=g)
            kwargs["token_type_ids"] = In("token_type_ids")
        with torch.no_grad():
            expected = output(model(**inputs))
        b.add(
            case_id,
            f"against {model_class.__name__}, {about}",
            kind,
            target,
            init=[config_arg(config)],
            params=params,
            args=[In("input_ids")],
            kwargs=kwargs,
            outputs=["output"],
            inputs=inputs,
            expected=[expected],
            meta={"lengths": lengths, "left": left},
            hf_train=lambda upstream, model=model, inputs=inputs: hf_trained(
                model,
                lambda: output(model(**inputs)),
                {},
                ["output"],
                upstream,
                lambda grads: hf.to_spec(grads, shapes, prefix, classifier=classifier),
            ),
        )


def decoder(b):
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
            params=random_params(REF["TransformerDecoderLayer"], init, b.seed(case_id)),
            args=args,
            outputs=["output"],
            inputs=inputs,
        )

    config = decoder_config(CONFIG)
    model = hf_run(hf.randomize(BertModel(config), b.seed("hf")))
    shapes = spec_shapes("TransformerDecoder", config)
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


def decoder_config(config, **overrides):
    values = {key: getattr(config, key) for key in hf.SPEC_CONFIG_KEYS}
    values.update(is_decoder=True, add_cross_attention=True)
    values.update(overrides)
    return hf.bert_config(**values)


def heads(b):
    init = [config_arg(CONFIG)]
    g = torch.Generator().manual_seed(b.seed("hf-inputs"))
    ids = token_ids(g, CONFIG, 1, (2, 6))
    mask = attention_mask([6, 4], 6)
    for case_id, model_class, config in (
        ("hf-masked-lm", BertForMaskedLM, CONFIG),
        ("hf-lm-head-model", BertLMHeadModel, decoder_config(CONFIG, add_cross_attention=False)),
    ):
        model = hf_run(hf.randomize(model_class(config), b.seed(case_id)))
        with torch.no_grad():
            hidden = model(ids, attention_mask=mask, output_hidden_states=True).hidden_states[-1].float()
            logits = model.cls(hidden.double())  # on exactly the float32 input the student gets
        lm_head = head_of(spec_shapes("LanguageModelHead", config), "cls.", lm_head={"": ""})
        b.add(
            case_id,
            f"LM head of a seeded {model_class.__name__} on its last hidden state",
            "hf",
            "LanguageModelHead",
            init=init,
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

    model = hf_run(hf.randomize(BertForSequenceClassification(CONFIG), b.seed("hf-classification-head")))
    with torch.no_grad():
        hidden = model.bert(ids, attention_mask=mask).last_hidden_state.float()
        logits = model.classifier(model.bert.pooler(hidden.double()))
    head = head_of(
        spec_shapes("SequenceClassificationHead", CONFIG), ("bert.pooler", "classifier"), classifier={"": ""}
    )

    def classify(hidden_states):  # BertForSequenceClassification's own steps after the encoder
        return model.classifier(model.dropout(model.bert.pooler(hidden_states)))

    b.add(
        "hf-classification-head",
        "pooler and classifier of a seeded BertForSequenceClassification",
        "hf",
        "SequenceClassificationHead",
        init=init,
        params={k: v.float() for k, v in head(model.state_dict()).items()},
        args=[In("hidden_states")],
        outputs=["logits"],
        inputs={"hidden_states": hidden},
        expected=[logits],
        hf_train=lambda upstream: hf_trained(
            model, classify, {"hidden_states": hidden.double()}, ["logits"], upstream, head
        ),
    )
    hf_encoder_cases(
        b,
        "hf-model",
        "TransformerForSequenceClassification",
        BertForSequenceClassification,
        prefix={"bert.": "encoder."},
        classifier={"": "head."},
        output=lambda out: out.logits,
    )

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


def seq2seq(b):
    enc_config = CONFIG
    dec_config = decoder_config(CONFIG, vocab_size=36, num_hidden_layers=1)
    init = [config_arg(enc_config), config_arg(dec_config)]
    model = hf_run(
        hf.randomize(
            EncoderDecoderModel(encoder=BertModel(enc_config), decoder=BertLMHeadModel(dec_config)), b.seed("hf")
        )
    )
    shapes = spec_shapes("Seq2SeqTransformer", enc_config, dec_config)

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
        S, T = (max(source), max(target)) if source else (6, 5)
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


BUILDERS = (attention, masking, layernorm, multihead, feedforward, embeddings, encoder, decoder, heads, seq2seq)


def build(folder=HERE, components=None, public=False):
    """Write each component's cases, and every cataloged mistake's evidence on them, into folder: the hidden
    suites' cases, or (public) the public checks', which ship to students."""
    global REF
    REF = reference()
    torch.use_deterministic_algorithms(True)
    for function in BUILDERS:
        if components and function.__name__ not in components:
            continue
        builder = Builder(function.__name__, public)
        function(builder)
        builder.write(folder)
        evidence.hidden(folder, function.__name__)
