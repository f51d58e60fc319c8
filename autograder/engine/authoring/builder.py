"""What every component's cases are built with: the Builder (a case's inputs, its expected values from the
reference run in float64 or from Hugging Face, its train-mode values and gradients), the configs, and the helpers
the components' builders share (engine/authoring/cases/, one module per component)."""

import contextlib
import json
import math
import zlib
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np
import torch

from autograder.engine.authoring import mutants
from autograder.engine.child import train_mode
from autograder.engine.contract import messages
from autograder.engine.judge import hf
from autograder.engine.judge.fixtures import FLOATS, SAME_PARAMS

# The two dropout probabilities differ, so that train mode shows one used in the other's place.
CONFIG = hf.bert_config(hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.2)

# Every size a student might hard-code differs from CONFIG's and from the usual defaults (H=4 or 12, F=4D, 512
# positions, 2 token types, eps 1e-12 or 1e-5, dropout 0.1): read from a config, each is right only if read from this
# one. eps is large enough that a layer norm built without it misses by far more than the float32 tolerance.
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

ODD_ABOUT = "a config unlike the others: D=30, H=5 (Dh=6), F=50, 3 layers, 13 positions, 3 token types, eps 0.05"


@dataclass(frozen=True)
class In:
    """An argument filled from the case's inputs."""

    name: str


class Builder:
    """One component's cases, built on the reference's objects (reference: {SPEC name: object})."""

    def __init__(self, component, reference, public=False):
        self.component = component
        self.reference = reference
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

        Where it has float outputs and something to train (weights, or float inputs), it is also graded in train
        mode: train_outputs (all its float outputs unless given) each get a seeded upstream gradient, and what
        train mode gives comes from hf_train(upstream) where given, else from the reference."""
        kwargs = kwargs or {}
        if expected is None:
            expected = self.run_reference(target, init, params, args, kwargs, inputs)
        expected = dict(zip(outputs, expected))
        if train_outputs is None:
            train_outputs = [name for name in outputs if _stored(expected[name], "expected").dtype.kind == "f"]
        upstream, trained = {}, {}
        if train_outputs and (init is not None or any(_is_float(v) for v in inputs.values())):
            upstream = self._upstream(case_id, expected, train_outputs)
            trained = (
                hf_train(upstream)
                if hf_train
                else self.run_reference_train(target, init, params, args, kwargs, inputs, outputs, upstream)
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
        groups = {"params": params or {}, "inputs": inputs, "expected": expected, "upstream": upstream}
        for group, values in {**groups, "trained": trained}.items():
            for name, value in values.items():
                self.arrays[f"{case_id}/{group}/{name}"] = _stored(value, group)

    def _upstream(self, case_id, expected, train_outputs):
        """A seeded upstream gradient for each output graded in train mode."""
        g = torch.Generator().manual_seed(self.seed(f"{case_id}/upstream"))
        # Unit norm per output, as a loss averaged over its elements would give, so that the gradients are
        # O(1) like the values graded beside them: float32's elementwise tolerance is made for O(1) values.
        # N(0, 1) per element made gradients up to 300 in size, whose small elements (sums that cancel)
        # used up to half of their tolerance on float32's rounding alone (benchmarks/tolerance_headroom.py).
        return {
            name: randn(g, *expected[name].shape) / math.sqrt(math.prod(expected[name].shape)) for name in train_outputs
        }

    def run_reference(self, target, init, params, args, kwargs, inputs):
        """The reference's outputs in float64, as a list."""
        obj, args, kwargs = self._reference_call(target, init, params, args, kwargs, inputs)
        with float64(), torch.no_grad():
            out = obj(*args, **kwargs)
        return list(out) if isinstance(out, tuple) else [out]

    def run_reference_train(self, target, init, params, args, kwargs, inputs, outputs, upstream):
        """What the reference gives in train mode, in float64: {output: value} for the outputs upstream names,
        and {"NAME.grad": gradient} of every float input and every parameter."""
        obj, values, keywords = self._reference_call(target, init, params, args, kwargs, inputs)
        with float64():
            result, values, keywords, _ = train_mode.run(
                obj, values, keywords, [upstream.get(name) for name in outputs]
            )
        trained = {name: value for name, value in zip(outputs, train_mode.outputs(result)) if name in upstream}
        for arg, value in [*zip(args, values), *((kwargs[k], keywords[k]) for k in kwargs)]:
            if isinstance(arg, In) and _is_float(value):
                trained[f"{arg.name}.grad"] = value.grad
        if isinstance(obj, torch.nn.Module):
            trained.update({f"{name}.grad": grad for name, grad in train_mode.parameter_gradients(obj).items()})
        return trained

    def _reference_call(self, target, init, params, args, kwargs, inputs):
        """The reference's target (built, with its weights, in float64) and the call's arguments in float64."""
        obj = self.reference[target]
        if init is not None:
            obj = mutants.instantiate(obj, init)
            if params is not None:
                obj.load_state_dict({k: torch.as_tensor(v) for k, v in params.items()}, strict=True)
            obj = obj.double().eval()

        def fill(value):
            if isinstance(value, In):
                tensor = torch.as_tensor(inputs[value.name])
                return tensor.double() if tensor.is_floating_point() else tensor
            return (
                torch.device(value[messages.DEVICE]) if isinstance(value, dict) and messages.DEVICE in value else value
            )

        return obj, [fill(a) for a in args], {k: fill(v) for k, v in kwargs.items()}

    def spec_shapes(self, target, *configs):
        return hf.spec_shapes(self.reference[target], *configs)

    def write(self, folder):
        """The cases' facts as JSON, their arrays in one npz; weights that an earlier case stores already (a model
        under several cases: a beam search's) are stored once, and the later case names that case (SAME_PARAMS)."""
        metas, arrays = [], dict(self.arrays)
        first: dict[tuple[object, ...], str] = {}  # the weights -> the case that stores them
        for meta in self.metas:
            prefix = f"{meta['id']}/params/"
            params = {key: array for key, array in self.arrays.items() if key.startswith(prefix)}
            weights = tuple((key[len(prefix) :], a.dtype.str, a.shape, a.tobytes()) for key, a in params.items())
            if weights and weights in first:
                meta = {**meta, SAME_PARAMS: first[weights]}
                arrays = {key: array for key, array in arrays.items() if key not in params}
            elif weights:
                first[weights] = meta["id"]
            metas.append(meta)
        (folder / f"{self.component}.json").write_text(json.dumps(metas, indent=1) + "\n")
        np.savez_compressed(folder / f"{self.component}.npz", **arrays)


def _ref(value):
    return {messages.INPUT: value.name} if isinstance(value, In) else value


def _stored(value, group):
    array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
    if array.dtype.kind == "f":
        return array.astype(np.float64 if group in ("expected", "trained") else np.float32)
    return array


def _is_float(value: object) -> TypeGuard[torch.Tensor]:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def config_arg(config):
    return {messages.CONFIG: hf.spec_config(config)}


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

    call(**leaves) runs the model and returns the outputs named by outputs; leaves are its float inputs, whose
    gradients are kept as "NAME.grad"; to_spec renames {HF parameter name: gradient} to SPEC names. Tied parameters
    are untied first (hf.untie), since the SPEC's modules hold a copy in each place. The model is back in eval mode
    afterwards."""
    hf.untie(model)
    try:
        result, _, leaves, _ = train_mode.run(call, [], leaves, [upstream.get(name) for name in outputs], module=model)
    finally:
        model.eval()
    trained = {name: value for name, value in zip(outputs, train_mode.outputs(result)) if name in upstream}
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
    module = hf.randomize(mutants.instantiate(module_class, init), seed)
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def hf_run(model):
    return model.double().eval()


def random_mask(g, kind, B, T, S):
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


def part_of(shapes, prefix, **mapping):
    """state -> the SPEC-named tensors of BertModel's state under prefix (a SPEC prefix), without it."""
    return lambda state: {
        k.removeprefix(prefix): v for k, v in hf.to_spec(state, shapes, **mapping).items() if k.startswith(prefix)
    }


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
        params=random_params(b.reference[target], init, b.seed(case_id)),
        args=[In(name) for name in args],
        kwargs={name: In(name) for name in kwargs},
        outputs=list(outputs),
        inputs=inputs(g, ODD_CONFIG),
        train_outputs=train_outputs,
    )


def token_ids(g, config, low, shape):
    """Token ids in [low, vocab_size), none of them the pad token: BERT builds its token table with
    nn.Embedding(padding_idx=pad_token_id), which keeps the pad row's gradient at zero, and the SPEC leaves that
    choice open, so no case asks for the pad row's gradient."""
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


def hf_encoder_cases(b, kind, target, model_class, prefix, classifier=None, output=lambda out: out.last_hidden_state):
    """A seeded BERT model against the SPEC class target, over padding, token types and batch sizes."""
    config = CONFIG
    model = hf_run(hf.randomize(model_class(config), b.seed(kind)))
    shapes = b.spec_shapes(target, config)
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


def decoder_config(config, **overrides):
    values = {key: getattr(config, key) for key in hf.SPEC_CONFIG_KEYS}
    values.update(is_decoder=True, add_cross_attention=True)
    values.update(overrides)
    return hf.bert_config(**values)
