"""Public checks: what a student runs in the notebooks and with `python -m autograder grade` in the bundle.

They compare the student's code with torch's own building blocks (F.scaled_dot_product_attention,
F.layer_norm, nn.MultiheadAttention, the post-LN nn.TransformerEncoderLayer and DecoderLayer) and with
what the SPEC states, so they need no reference solution and no stored data. They are fewer and
smaller than the hidden suites, which alone decide the grade. Every check runs in float64 on a small
config, in eval mode, except the training checks: those run in train mode, with every dropout replaced
by the deterministic stand-in the hidden suites use (engine/child/training.py), so that where dropout is
applied shows, and compare each gradient of one backward pass with the change in the output that a
small step in that tensor makes (central differences), so they need no reference either.
`check_<component>(names...)` takes the component's SPEC names in SPEC order.
"""
import math
import warnings
import zlib
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.parameter import is_lazy

from autograder.course import PUBLIC_EVIDENCE
from autograder.engine.child import runtime, training
from autograder.engine.judge import checks, diagnosis

# What the notebooks' worked examples build: small, round sizes.
CONFIG = dict(
    vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=32,
    hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, max_position_embeddings=20, type_vocab_size=2,
    layer_norm_eps=1e-12, num_labels=3, pad_token_id=0,
)
# What the checks build: sizes unlike the usual ones, so that a hard-coded size or eps fails here too,
# and Dh = 6, so that 1/sqrt(Dh) is not exact in float32 and a scale made in float32 shows in float64.
# Unequal dropout probabilities, so that one used in the other's place shows in train mode.
CHECKED = dict(hidden_size=18, num_hidden_layers=3, num_attention_heads=3, intermediate_size=28, type_vocab_size=3,
               layer_norm_eps=0.05, num_labels=4, hidden_dropout_prob=0.3, attention_probs_dropout_prob=0.2)
DTYPE = torch.float64


class NotStarted(NotImplementedError):
    """A name the check needs still raises NotImplementedError."""


def config(**overrides):
    """A small config with BertConfig's attribute names (SimpleNamespace: no transformers import needed)."""
    return SimpleNamespace(**{**CONFIG, **overrides})


class Failed(AssertionError):
    """Some of a component's public checks failed; likely is the "Likely mistake: ..." line, if one is named."""

    def __init__(self, component_id, passed, failures, likely=None):
        self.passed, self.total, self.failures, self.likely = passed, passed + len(failures), failures, likely
        super().__init__(f"{component_id}: {passed} of {self.total} public checks passed; first failure: {failures[0]}"
                         + (f"\n{likely}" if likely else ""))


# What the checks of the component being run returned, for diagnosis.py: one observation per comparison.
_observations = []
# How many checks the last run() passed, for progress(). The check_ functions return nothing: a notebook
# shows no Out[] under their cell, where nbgrader would read a number as the cell's partial credit.
_passed = [0]


def last_observations():
    """The observations of the last run(), as the evidence builder (course/public_evidence.py) reads them."""
    return list(_observations)


@cache
def shipped_evidence():
    """The evidence on these checks' cases, or None where it was not shipped."""
    return diagnosis.Evidence(PUBLIC_EVIDENCE) if Path(f"{PUBLIC_EVIDENCE}.json").exists() else None


# Checks of where dropout goes, on values that must be right without it: a component lists them after the
# checks of its module's values, and a check of another function (the sinusoidal table) after them. (The
# gradient checks compare the student's backward pass with the student's own forward: their messages hold
# whatever the values.)
AFTER_VALUES = ("train mode",)
VALUES_FIRST = f"Hint: {checks.EVAL_FIRST}"


def run(component_id, checks_, quiet=False):
    """Run one component's checks, printing ✓/✗ per check; raises Failed if any fails.

    A stub (NotImplementedError) stops at once: nothing after it can pass. When some fail and their
    outputs are a cataloged mistake's, a "Likely mistake: ..." line says which. Where a value check has
    failed, a train-mode check's hint on dropout would guess at a cause its numbers do not show: it says to
    fix the values first instead.
    """
    failures = []
    values_failed = False
    _observations.clear()
    for about, check in checks_:
        first = len(_observations)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's own modules warn about their fast paths
                check()
        except NotImplementedError as error:
            frame = runtime.student_frame(error)
            where = f"{frame.filename}, line {frame.lineno}" if frame else "your code"
            raise NotStarted(f"{component_id} is not written yet: {where} raises NotImplementedError") from error
        except Exception as error:  # noqa: BLE001 - whatever the student's code raises is feedback
            message = str(error) if isinstance(error, AssertionError) else f"your code raised {runtime.describe(error)}"
            if about.startswith(AFTER_VALUES) and values_failed:
                message = "\n".join([line for line in message.splitlines() if not line.startswith("Hint: ")] + [VALUES_FIRST])
            values_failed |= not about.startswith(AFTER_VALUES)
            failures.append(f"{about}: {message}")
            if not quiet:
                print(f"✗ {about}\n    " + message.replace("\n", "\n    "))
            _settle(first, passed=False)
        else:
            if not quiet:
                print(f"✓ {about}")
            _settle(first, passed=True)
    passed = len(checks_) - len(failures)
    if failures:
        evidence = shipped_evidence()
        likely = evidence.diagnose(component_id, _observations) if evidence else None
        if likely and not quiet:
            print(likely)
        raise Failed(component_id, passed, failures, likely)
    if not quiet:
        print(f"{component_id}: all {passed} public checks passed")
    _passed[0] = passed


def _settle(first, passed):
    """Observations since first that no comparison judged (decoded tokens) take the check's verdict."""
    for observation in _observations[first:]:
        if observation.passed is None:
            observation.passed = passed


def _observe(where, name, actual, expected=None, dtype="float64"):
    """Record what the student's code returned (the first time a check sees it); returns the observation.

    dtype is the one whose tolerance the check allows: None for an output that may come in any float dtype.
    """
    key = f"{where}{diagnosis.SEPARATOR}{name}"
    known = next((o for o in _observations if o.key == key), None)
    if known is None:
        known = diagnosis.Observation(key, dtype, None, {name: actual}, {} if expected is None else {name: expected})
        _observations.append(known)
    return known


def _judged(observation, compare):
    """Run compare, the check of an observation, and record its verdict (an observation seen before keeps
    its first)."""
    passed = False
    try:
        compare()
        passed = True
    finally:
        if observation.passed is None:
            observation.passed = passed


# --- helpers -------------------------------------------------------------------------------------


def _generator(seed):
    return torch.Generator().manual_seed(seed)


def _randn(*shape, seed, scale=1.0):
    return torch.randn(*shape, generator=_generator(seed), dtype=DTYPE) * scale


def seeded(cls, *args, seed=0):
    """The student's module, in float64 and eval mode, every parameter given a seeded O(1) value.

    Layer norms start at weight 1 and bias 0; a missing bias or a swapped weight would hide behind that. A lazy
    layer (nn.LazyLinear, as d2l builds its projections) has no shape to seed until its first call: it is
    seeded then, before that call computes anything, so a check calls the student's module before it reads
    the module's weights.
    """
    module = cls(*args)
    if not isinstance(module, nn.Module):
        raise AssertionError(f"{cls.__name__}(...) should be an nn.Module, but is {type(module).__name__}")
    module = module.to(DTYPE).eval()
    _seed(module, seed)
    for prefix, layer in module.named_modules():
        if isinstance(layer, LazyModuleMixin):
            _seed_when_shaped(layer, prefix, seed)
    return module


def _seed_when_shaped(layer, prefix, seed):
    """Seed a lazy layer's parameters on its first call: after torch's own first-call hook has given them
    their shapes, before the call computes anything."""
    def hook(layer, args):
        handle.remove()
        _seed(layer, seed, prefix)

    handle = layer.register_forward_pre_hook(hook)


def _seed(module, seed, prefix=""):
    """Every materialised parameter of module, named as the whole module's parameter prefix.name."""
    with torch.no_grad():
        for name, param in module.named_parameters(prefix):
            if is_lazy(param):
                continue
            # Seeded by name: a module that defines its layers in another order gets the same weights.
            noise = torch.randn(param.shape, generator=_generator(zlib.crc32(f"{seed}/{name}".encode())), dtype=DTYPE)
            if param.dim() == 1:
                param.copy_((1 if name.endswith("weight") else 0) + 0.2 * noise)
            elif param.dim() == 2 and "embeddings" not in name:
                param.copy_(noise / param.shape[1] ** 0.5)
            else:
                param.copy_(noise)


def _close(actual, expected, name, where, hint=""):
    if not isinstance(actual, torch.Tensor):
        raise AssertionError(f"{where}: {name} should be a tensor, but is {type(actual).__name__}")
    actual_dtype = str(actual.dtype).removeprefix("torch.")
    expected = expected.detach().to(DTYPE).numpy()
    array = actual.detach().cpu().to(DTYPE).numpy() if actual.is_floating_point() else actual.detach().cpu().numpy()
    _judged(_observe(where, name, array, expected),
            lambda: checks.compare(array, actual_dtype, expected, name, where, "float64", hint))


def _equal(actual, expected, name, where, hint=""):
    if not isinstance(actual, torch.Tensor):
        raise AssertionError(f"{where}: {name} should be a tensor, but is {type(actual).__name__}")
    array = actual.detach().cpu().numpy()
    _judged(_observe(where, name, array, expected.numpy()),
            lambda: checks.equal({"$tensor": array, "dtype": str(actual.dtype)}, expected.numpy(), name, where, hint))


def _pair(result, what):
    if not (isinstance(result, tuple) and len(result) == 2):
        raise AssertionError(f"{what} should return a tuple (output, weights), got {type(result).__name__}")
    return result


def _submodules(module, shapes):
    """Each named parameter exists with its SPEC shape (the names the graders load weights by)."""
    params = dict(module.named_parameters())
    with torch.no_grad():
        for name, shape in shapes.items():
            if name in params and is_lazy(params[name]):
                params[name].materialize(shape)  # as the graders' weights, loaded by name, will shape it
    for name, shape in shapes.items():
        if name not in params:
            raise AssertionError(f"{type(module).__name__} has no parameter {name}; the SPEC fixes these names "
                                 "so that weights load by name (keep the constructor you were given)")
        if tuple(params[name].shape) != shape:
            raise AssertionError(f"{type(module).__name__}.{name} has shape {tuple(params[name].shape)}, expected {shape}")


def _linear_shapes(prefix, d_in, d_out):
    return {f"{prefix}.weight": (d_out, d_in), f"{prefix}.bias": (d_out,)}


def _torch_attention(student, cfg):
    """nn.MultiheadAttention holding the weights of the student's MultiHeadAttention."""
    reference = nn.MultiheadAttention(cfg.hidden_size, cfg.num_attention_heads, batch_first=True, dtype=DTYPE)
    _copy_attention(student, reference)
    return reference.eval()


def _trained_attention(student, cfg, x, source, masks):
    """What the student's MultiHeadAttention should return in train mode: dropout's stand-in on the attention
    probabilities that nn.MultiheadAttention gives, then @ value, heads merged, and `output`.

    nn.MultiheadAttention's own dropout cannot be swapped for the stand-in: it runs inside a torch function
    (F.multi_head_attention_forward), and a TorchFunctionMode sees only the outermost call."""
    _, weights = _torch_attention(student, cfg)(x, source, source, need_weights=True, average_attn_weights=False, **masks)
    value = F.linear(source, student.value.weight, student.value.bias).unflatten(-1, (cfg.num_attention_heads, -1))
    context = _dropout(weights, cfg.attention_probs_dropout_prob) @ value.transpose(1, 2)
    return F.linear(context.transpose(1, 2).flatten(2), student.output.weight, student.output.bias)


def _copy_attention(student, reference):
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([student.query.weight, student.key.weight, student.value.weight]))
        reference.in_proj_bias.copy_(torch.cat([student.query.bias, student.key.bias, student.value.bias]))
        reference.out_proj.weight.copy_(student.output.weight)
        reference.out_proj.bias.copy_(student.output.bias)


def _copy_norm(student, reference):
    with torch.no_grad():
        reference.weight.copy_(student.weight)
        reference.bias.copy_(student.bias)


def _copy_feed_forward(student, reference):
    with torch.no_grad():
        for name in ("linear1", "linear2"):
            getattr(reference, name).weight.copy_(getattr(student, name).weight)
            getattr(reference, name).bias.copy_(getattr(student, name).bias)


def _torch_encoder_layer(student, cfg):
    """nn.TransformerEncoderLayer, post-LN with exact GELU (BERT's layer), holding the student's weights."""
    reference = nn.TransformerEncoderLayer(
        cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, activation="gelu",
        layer_norm_eps=cfg.layer_norm_eps, batch_first=True, norm_first=False, dtype=DTYPE,
    )
    _copy_attention(student.attention, reference.self_attn)
    _copy_feed_forward(student.feed_forward, reference)
    _copy_norm(student.attention_norm, reference.norm1)
    _copy_norm(student.output_norm, reference.norm2)
    return reference.eval()


def _torch_decoder_layer(student, cfg):
    reference = nn.TransformerDecoderLayer(
        cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, activation="gelu",
        layer_norm_eps=cfg.layer_norm_eps, batch_first=True, norm_first=False, dtype=DTYPE,
    )
    _copy_attention(student.self_attention, reference.self_attn)
    _copy_attention(student.cross_attention, reference.multihead_attn)
    _copy_feed_forward(student.feed_forward, reference)
    _copy_norm(student.self_attention_norm, reference.norm1)
    _copy_norm(student.cross_attention_norm, reference.norm2)
    _copy_norm(student.output_norm, reference.norm3)
    return reference.eval()


def _feed_forward(block, x):
    """linear2(gelu(linear1(x))) with the block's weights: its output before dropout."""
    return F.linear(F.gelu(F.linear(x, block.linear1.weight, block.linear1.bias)), block.linear2.weight, block.linear2.bias)


def _trained_layer(x, cfg, attentions, feed_forward, output_norm):
    """BERT's post-LN layer in train mode, from _trained_attention and the student's weights.

    attentions holds (the student's attention, its norm, the key/value states or None, torch's masks) per
    attention block; dropout (its stand-in) follows each block's output before its residual sum."""
    p = cfg.hidden_dropout_prob
    for attention, norm, source, masks in attentions:
        attended = _trained_attention(attention, cfg, x, x if source is None else source, masks)
        x = F.layer_norm(x + _dropout(attended, p), (cfg.hidden_size,), norm.weight, norm.bias, cfg.layer_norm_eps)
    total = x + _dropout(_feed_forward(feed_forward, x), p)
    return F.layer_norm(total, (cfg.hidden_size,), output_norm.weight, output_norm.bias, cfg.layer_norm_eps)


def _layer_count(student, cfg):
    if len(student.layers) != cfg.num_hidden_layers:
        raise AssertionError(f"layers holds {len(student.layers)} layers, expected num_hidden_layers = {cfg.num_hidden_layers}")


def _tokens(batch, length, cfg, seed):
    return torch.randint(0, cfg.vocab_size, (batch, length), generator=_generator(seed))


PADDED = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])  # (B, S): the second row ends in two pads


def _causal(size):
    return torch.ones(size, size, dtype=torch.bool).tril()


# --- training: train mode and gradients ---------------------------------------------------------

# Central differences in float64: truncation ~ STEP² (1e-12) and rounding ~ 1e-16 / STEP (1e-10) relative to
# the loss, so a right gradient agrees to 1e-6 while a cut or frozen one is off by O(1).
STEP = 1e-6
GRADIENT_TOLERANCE = 1e-6
CUT = "a .detach(), .data, torch.no_grad() or a value rebuilt from .item() / .tolist() cuts it from the graph"


def _train_mode(module, call):
    """call() with module (if any) in train mode and every dropout replaced by the hidden suites' stand-in."""
    if module is not None:
        module.train()
    with training.StandInDropout():
        return call()


def _dropout(x, p):
    """What dropout with probability p gives while these checks run (engine/child/training.py)."""
    return training.stand_in(x, p)


def _gradients(call, inputs, module=None, where="", seed=0):
    """Check the gradients of one backward pass through call(*inputs.values()) against central differences.

    In train mode with dropout's stand-in, with one seeded upstream gradient per float output: the
    derivative along one seeded random direction in every float input and every parameter of module at
    once. Where that is off, the derivative in each tensor alone names the one whose gradient is wrong, and
    those of every tensor are the check's observation (for naming a cataloged mistake).
    """
    params = dict(module.named_parameters()) if module is not None else {}
    leaves = {name: value.detach().clone().requires_grad_() for name, value in inputs.items() if value.is_floating_point()}
    args = [leaves.get(name, value) for name, value in inputs.items()]
    tensors = {**leaves, **params}
    upstream = []

    def loss():
        values = [v for v in training.outputs(_train_mode(module, lambda: call(*args)))
                  if isinstance(v, torch.Tensor) and v.is_floating_point()]
        if not upstream:
            upstream.extend(_randn(*v.shape, seed=seed + i) for i, v in enumerate(values))
        return sum((v * g).sum() for v, g in zip(values, upstream))

    total = loss()
    if not isinstance(total, torch.Tensor) or not total.requires_grad:
        raise AssertionError(f"{where}: no gradient reaches anything: the output is computed under torch.no_grad() "
                             "or detached")
    total.backward()
    directions = {name: _randn(*tensor.shape, seed=zlib.crc32(name.encode())) for name, tensor in tensors.items()}

    def rates(names):
        """(the backward pass's derivative along the directions of names, the output's rate of change)"""
        analytic = sum(float((tensors[n].grad * directions[n]).sum()) for n in names if tensors[n].grad is not None)
        originals = {n: tensors[n].detach().clone() for n in names}
        with torch.no_grad():
            steps = []
            for sign in (1, -1):
                for n in names:
                    tensors[n].copy_(originals[n] + sign * STEP * directions[n])
                steps.append(float(loss()))
            for n in names:
                tensors[n].copy_(originals[n])
        return analytic, (steps[0] - steps[1]) / (2 * STEP)

    def agree(analytic, numeric):
        return abs(numeric - analytic) <= GRADIENT_TOLERANCE * max(1.0, abs(numeric))

    frozen = [name for name, param in params.items() if not param.requires_grad]
    if not frozen and agree(*rates(list(tensors))):
        return
    each = {name: rates([name]) for name in tensors}
    observation = _observe(where, "gradients", np.array([a for a, _ in each.values()]), np.array([n for _, n in each.values()]))
    observation.passed = False
    if frozen:
        raise AssertionError(f"{where}: {', '.join(frozen)} {'does' if len(frozen) == 1 else 'do'} not require grad, "
                             "so training never changes it: drop requires_grad=False / requires_grad_(False)")
    name, (analytic, numeric) = next(((n, r) for n, r in each.items() if not agree(*r)), (None, (0.0, 0.0)))
    if name is None:
        raise AssertionError(f"{where}: the gradients of your backward pass do not agree with how the output changes")
    if tensors[name].grad is None:
        raise AssertionError(f"{where}: no gradient reaches {name}, yet the output depends on it: {CUT}")
    raise AssertionError(f"{where}: the gradient with respect to {name} is wrong: along a random direction your "
                         f"backward pass gives {analytic:.6g}, while the output changes at the rate {numeric:.6g}. "
                         f"Part of the computation is cut from the graph ({CUT}), or a custom autograd Function "
                         "computes its backward wrongly.")


# --- the checks ----------------------------------------------------------------------------------


def check_attention(scaled_dot_product_attention, quiet=False):
    q, k, v = _randn(2, 3, 4, 8, seed=1), _randn(2, 3, 5, 8, seed=2), _randn(2, 3, 5, 6, seed=3)
    eye = torch.eye(5, dtype=DTYPE).expand(2, 3, 5, 5)  # attending over the identity returns the weights

    def compare(mask, torch_mask, where):
        output, weights = _pair(scaled_dot_product_attention(q, k, v, mask), "scaled_dot_product_attention")
        _close(weights, F.scaled_dot_product_attention(q, k, eye, attn_mask=torch_mask), "weights", where,
               "weights = softmax over the last dim (keys) of query @ keyᵀ / sqrt(Dh), Dh = query.size(-1)")
        _close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=torch_mask), "output", where,
               "output = weights @ value")
        return weights

    def shapes():
        output, weights = _pair(scaled_dot_product_attention(q, k, v), "scaled_dot_product_attention")
        for got, want, name in ((output, (2, 3, 4, 6), "output"), (weights, (2, 3, 4, 5), "weights")):
            if not isinstance(got, torch.Tensor) or tuple(got.shape) != want:
                raise AssertionError(f"{name} should have shape {want} for query (2, 3, 4, 8), key (2, 3, 5, 8), "
                                     f"value (2, 3, 5, 6); got {getattr(got, 'shape', type(got).__name__)}")

    mask = torch.tensor([[1, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0], [1, 1, 0, 0, 1]], dtype=torch.bool)

    def blocked():
        weights = compare(mask, mask, "a (T, S) mask")
        if (weights[..., ~mask] != 0).any():
            raise AssertionError("a blocked key got a weight that is not exactly 0: fill blocked scores with -inf "
                                 "(float('-inf')) before the softmax")

    run("attention", [
        ("shapes: output (..., T, Dv), weights (..., T, S)", shapes),
        ("no mask: the same as torch's attention", lambda: compare(None, None, "no mask")),
        ("a (T, S) mask: blocked keys get weight exactly 0", blocked),
        ("a (B, 1, 1, S) padding mask", lambda: compare(PADDED[:, None, None, :].bool(), PADDED[:, None, None, :].bool(),
                                                         "a (B, 1, 1, S) mask")),
        ("gradients with respect to query, key and value", lambda: _gradients(
            lambda query, key, value: scaled_dot_product_attention(query, key, value, mask),
            dict(query=q, key=k, value=v), where="a (T, S) mask")),
    ], quiet)


def check_masking(causal_mask, padding_mask, quiet=False):
    def causal():
        expected = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=torch.bool)
        _equal(causal_mask(3), expected, "causal_mask(3)", "causal_mask(3)",
               "True at [i, j] where j <= i: a query may look at itself and at earlier positions")

    def device():
        mask = causal_mask(4, device="cpu")
        if not isinstance(mask, torch.Tensor) or mask.device.type != "cpu" or tuple(mask.shape) != (4, 4):
            raise AssertionError("causal_mask(4, device='cpu') should be a (4, 4) tensor on the cpu")

    def padding():
        expected = PADDED.bool()[:, None, None, :]
        _equal(padding_mask(PADDED), expected, "padding_mask", "padding_mask of a (2, 5) 0/1 mask",
               "True at real tokens (1s), shaped (B, 1, 1, S) so that it broadcasts over heads and queries")

    run("masking", [
        ("causal_mask(3) is lower-triangular and boolean", causal),
        ("causal_mask(size, device=...) makes the mask on that device", device),
        ("padding_mask: (B, S) 0/1 -> bool (B, 1, 1, S)", padding),
    ], quiet)


def check_layernorm(LayerNorm, quiet=False):
    def parameters():
        norm = LayerNorm(16)
        _submodules(norm, {"weight": (16,), "bias": (16,)})
        if not (torch.all(norm.weight == 1) and torch.all(norm.bias == 0)):
            raise AssertionError("weight should start at ones and bias at zeros")

    def values(eps, scale, where, hint):
        norm = seeded(LayerNorm, 16, eps)
        x = _randn(2, 5, 16, seed=4, scale=scale)
        _close(norm(x), F.layer_norm(x, (16,), norm.weight, norm.bias, eps), "output", where, hint)

    def gradients():
        norm = seeded(LayerNorm, 16, 0.1)
        _gradients(norm, dict(x=_randn(2, 5, 16, seed=4)), norm, "LayerNorm(16, eps=0.1)")

    run("layernorm", [
        ("parameters weight (ones) and bias (zeros)", parameters),
        ("the same as torch's layer norm", lambda: values(1e-12, 1.0, "eps=1e-12",
                                                          "normalise over the last dim with the biased variance "
                                                          "(unbiased=False), then scale by weight and add bias")),
        ("a large eps, on inputs with a small variance", lambda: values(0.1, 0.1, "eps=0.1",
                                                                        "eps goes inside the square root: "
                                                                        "(x - mean) / sqrt(var + eps)")),
        ("gradients with respect to the input, weight and bias", gradients),
    ], quiet)


def check_feedforward(FeedForward, quiet=False):
    cfg = config(**CHECKED)

    def parameters():
        _submodules(FeedForward(cfg), {**_linear_shapes("linear1", cfg.hidden_size, cfg.intermediate_size), **_linear_shapes("linear2", cfg.intermediate_size, cfg.hidden_size)})

    def values():
        block = seeded(FeedForward, cfg)
        x = _randn(2, 5, cfg.hidden_size, seed=5, scale=3.0)  # large enough that tanh-approximate GELU is far off
        _close(block(x), _feed_forward(block, x), "output", f"x (2, 5, {cfg.hidden_size})",
               "linear2(gelu(linear1(x))) with the exact (erf) GELU, as BERT: F.gelu(x), not approximate='tanh'")

    def deterministic():
        block = seeded(FeedForward, cfg)
        x = _randn(2, 5, cfg.hidden_size, seed=5)
        _close(block(x), block(x), "output", "called twice in eval mode",
               "use the nn.Dropout module (it is off in eval mode), not F.dropout")

    def trained():
        block = seeded(FeedForward, cfg)
        x = _randn(2, 5, cfg.hidden_size, seed=5)
        _close(_train_mode(block, lambda: block(x)), _dropout(_feed_forward(block, x), cfg.hidden_dropout_prob),
               "output", "train mode", "dropout(linear2(gelu(linear1(x)))): dropout once, on linear2's output, "
               "with p = hidden_dropout_prob (BERT's place)")

    def gradients():
        block = seeded(FeedForward, cfg)
        _gradients(block, dict(x=_randn(2, 5, cfg.hidden_size, seed=5)), block, "FeedForward")

    run("feedforward", [
        ("parameters linear1 (D -> F) and linear2 (F -> D)", parameters),
        ("linear2(gelu(linear1(x))) with the exact GELU", values),
        ("no dropout in eval mode", deterministic),
        ("train mode: dropout on linear2's output", trained),
        ("gradients with respect to the input and every weight", gradients),
    ], quiet)


def check_multihead(MultiHeadAttention, quiet=False):
    cfg = config(**CHECKED)
    x, memory = _randn(2, 5, cfg.hidden_size, seed=6), _randn(2, 7, cfg.hidden_size, seed=7)

    def parameters():
        shapes = {}
        for name in ("query", "key", "value", "output"):
            shapes.update(_linear_shapes(name, cfg.hidden_size, cfg.hidden_size))
        _submodules(MultiHeadAttention(cfg), shapes)

    def compare(mask, where, key_value_states=None, **torch_masks):
        attention = seeded(MultiHeadAttention, cfg)
        source = x if key_value_states is None else key_value_states
        # The student's call first: a lazy layer has no weights to copy until it has been called.
        output, weights = _pair(attention(x, mask, key_value_states), "MultiHeadAttention")
        expected, expected_weights = _torch_attention(attention, cfg)(
            x, source, source, need_weights=True, average_attn_weights=False, **torch_masks)
        _close(weights, expected_weights, "weights", where,
               "split D into H heads with view(B, T, H, Dh).transpose(1, 2): head h uses features h*Dh to (h+1)*Dh")
        _close(output, expected, "output", where, "merge heads back with transpose(1, 2).reshape(B, T, D), then `output`")

    padding = PADDED.bool()

    def trained():
        attention = seeded(MultiHeadAttention, cfg)
        output, _ = _pair(_train_mode(attention, lambda: attention(x, padding[:, None, None, :])), "MultiHeadAttention")
        expected = _trained_attention(attention, cfg, x, x, dict(key_padding_mask=~padding))
        _close(output, expected, "output", "train mode",
               "dropout goes on the attention probabilities (after the softmax, before @ value), with "
               "p = attention_probs_dropout_prob, and nowhere else in this module")

    def gradients():
        attention = seeded(MultiHeadAttention, cfg)
        _gradients(lambda h, kv: attention(h, None, kv), dict(hidden_states=x, key_value_states=memory), attention,
                   "cross-attention")

    run("multihead", [
        ("parameters query, key, value, output (D -> D)", parameters),
        ("self-attention: the same as nn.MultiheadAttention", lambda: compare(None, "self-attention")),
        ("a (B, 1, 1, S) padding mask", lambda: compare(padding[:, None, None, :], "padding mask",
                                                         key_padding_mask=~padding)),
        ("a (T, T) causal mask", lambda: compare(_causal(5), "causal mask", attn_mask=~_causal(5))),
        ("cross-attention: keys and values from key_value_states (S = 7)",
         lambda: compare(None, "cross-attention", memory)),
        ("train mode: dropout on the attention probabilities", trained),
        ("gradients with respect to both inputs and every weight", gradients),
    ], quiet)


def check_embeddings(Embeddings, sinusoidal_positional_encoding, quiet=False):
    cfg = config(**CHECKED)
    ids = _tokens(2, 6, cfg, seed=8)
    types = torch.tensor([[0, 0, 0, 1, 1, 2], [0, 2, 1, 1, 1, 1]])

    def parameters():
        _submodules(Embeddings(cfg), {
            "token_embeddings.weight": (cfg.vocab_size, cfg.hidden_size),
            "position_embeddings.weight": (cfg.max_position_embeddings, cfg.hidden_size),
            "token_type_embeddings.weight": (cfg.type_vocab_size, cfg.hidden_size),
            "layer_norm.weight": (cfg.hidden_size,), "layer_norm.bias": (cfg.hidden_size,),
        })

    def expected(embeddings, token_type_ids):
        given = torch.zeros_like(ids) if token_type_ids is None else token_type_ids
        total = (embeddings.token_embeddings.weight[ids] + embeddings.position_embeddings.weight[:6]
                 + embeddings.token_type_embeddings.weight[given])
        return F.layer_norm(total, (cfg.hidden_size,), embeddings.layer_norm.weight, embeddings.layer_norm.bias, cfg.layer_norm_eps)

    def values(token_type_ids, where):
        embeddings = seeded(Embeddings, cfg)
        _close(embeddings(ids, token_type_ids), expected(embeddings, token_type_ids), "output", where,
               "layer_norm(token + position + token type); positions are 0..T-1, token types 0 when none are given")

    def trained():
        embeddings = seeded(Embeddings, cfg)
        _close(_train_mode(embeddings, lambda: embeddings(ids, types)),
               _dropout(expected(embeddings, types), cfg.hidden_dropout_prob), "output", "train mode",
               "dropout(layer_norm(token + position + token type)): dropout after the layer norm, "
               "with p = hidden_dropout_prob")

    def gradients():
        embeddings = seeded(Embeddings, cfg)
        _gradients(embeddings, dict(input_ids=ids, token_type_ids=types), embeddings, "Embeddings")

    def sinusoidal():
        # An odd width too: the formula defines it (the last column is a sine), and code that pairs the columns
        # up (sin and cos stacked, then reshaped) fails there.
        for max_len, width in ((7, 6), (5, 7)):
            table = sinusoidal_positional_encoding(max_len, width)
            expected = torch.tensor([[math.sin(p / 10000 ** (i / width)) if i % 2 == 0 else math.cos(p / 10000 ** ((i - 1) / width))
                                      for i in range(width)] for p in range(max_len)], dtype=DTYPE)
            if not isinstance(table, torch.Tensor) or not table.is_floating_point():
                raise AssertionError("sinusoidal_positional_encoding should return a float tensor")
            where, array = f"sinusoidal_positional_encoding({max_len}, {width})", table.detach().to(DTYPE).numpy()
            _judged(_observe(where, "table", array, expected.numpy(), dtype=None),
                    lambda: checks.compare(array, "float64", expected.numpy(), "table", where, None,
                                           "PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)), "
                                           "for every column of d_model, odd or even"))

    run("embeddings", [
        ("parameters of the three tables and the layer norm", parameters),
        ("token + position + token type, then layer norm", lambda: values(types, "with token_type_ids")),
        ("token_type_ids=None means all type 0", lambda: values(None, "without token_type_ids")),
        ("train mode: dropout after the layer norm", trained),
        ("gradients with respect to every table and the layer norm", gradients),
        ("the sinusoidal table of 'Attention Is All You Need'", sinusoidal),
    ], quiet)


def check_encoder(TransformerEncoderLayer, TransformerEncoder, quiet=False):
    cfg = config(**CHECKED)
    x = _randn(2, 5, cfg.hidden_size, seed=9)
    padding = PADDED.bool()

    def layer(mask, where, **torch_masks):
        student = seeded(TransformerEncoderLayer, cfg)
        _close(student(x, mask), _torch_encoder_layer(student, cfg)(x, **torch_masks), "output", where,
               "post-LN as BERT: x = attention_norm(x + dropout(attention(x))), "
               "then output_norm(x + feed_forward(x))")

    def encoder():
        student = seeded(TransformerEncoder, cfg)
        _layer_count(student, cfg)
        ids, types = _tokens(2, 5, cfg, seed=10), torch.tensor([[0, 0, 1, 1, 2], [0, 1, 2, 0, 0]])
        output = student(ids, PADDED, types)
        hidden = student.embeddings(ids, types)
        for block in student.layers:
            hidden = _torch_encoder_layer(block, cfg)(hidden, src_key_padding_mask=~padding)
        _close(output, hidden, "output", "TransformerEncoder with padding",
               "embeddings(input_ids, token_type_ids), then every layer in order, with padding_mask(attention_mask) passed to each")

    def trained():
        student = seeded(TransformerEncoderLayer, cfg)
        output = _train_mode(student, lambda: student(x, padding[:, None, None, :]))
        attention = (student.attention, student.attention_norm, None, dict(key_padding_mask=~padding))
        expected = _trained_layer(x, cfg, [attention], student.feed_forward, student.output_norm)
        _close(output, expected, "output", "a layer in train mode",
               "x = attention_norm(x + dropout(attention(x))), then output_norm(x + feed_forward(x)): dropout on the "
               "attention block's output before the residual sum, and none added around the feed-forward block "
               "(it applies its own)")

    def gradients():
        # Two layers show a graph cut between layers; fewer tensors keep a failing check's search short.
        student = seeded(TransformerEncoder, config(**{**CHECKED, "num_hidden_layers": 2}))
        _gradients(student, dict(input_ids=_tokens(2, 5, cfg, seed=10), attention_mask=PADDED), student,
                   "TransformerEncoder")

    run("encoder", [
        ("a layer: the same as torch's post-LN TransformerEncoderLayer", lambda: layer(None, "no mask")),
        ("a layer with a padding mask", lambda: layer(padding[:, None, None, :], "padding mask",
                                                       src_key_padding_mask=~padding)),
        ("the encoder: embeddings, then num_hidden_layers layers", encoder),
        ("train mode: dropout after the attention block", trained),
        ("gradients with respect to every weight of the encoder", gradients),
    ], quiet)


def check_heads(LanguageModelHead, SequenceClassificationHead, TransformerForSequenceClassification, quiet=False):
    cfg = config(**CHECKED)
    h = _randn(2, 5, cfg.hidden_size, seed=11)

    def lm_head():
        head = seeded(LanguageModelHead, cfg)
        _submodules(head, {**_linear_shapes("dense", cfg.hidden_size, cfg.hidden_size), **_linear_shapes("decoder", cfg.hidden_size, cfg.vocab_size)})
        hidden = F.layer_norm(F.gelu(F.linear(h, head.dense.weight, head.dense.bias)), (cfg.hidden_size,),
                              head.layer_norm.weight, head.layer_norm.bias, cfg.layer_norm_eps)
        _close(head(h), F.linear(hidden, head.decoder.weight, head.decoder.bias), "logits", "LanguageModelHead",
               "decoder(layer_norm(gelu(dense(h)))): logits, no softmax")

    def classifier():
        head = seeded(SequenceClassificationHead, cfg)
        _submodules(head, {**_linear_shapes("pooler", cfg.hidden_size, cfg.hidden_size), **_linear_shapes("classifier", cfg.hidden_size, cfg.num_labels)})
        pooled = torch.tanh(F.linear(h[:, 0], head.pooler.weight, head.pooler.bias))
        _close(head(h), F.linear(pooled, head.classifier.weight, head.classifier.bias), "logits",
               "SequenceClassificationHead", "classifier(dropout(tanh(pooler(h[:, 0])))): only the first ([CLS]) position")

    def trained():
        head = seeded(SequenceClassificationHead, cfg)
        logits = _train_mode(head, lambda: head(h))
        pooled = torch.tanh(F.linear(h[:, 0], head.pooler.weight, head.pooler.bias))
        expected = F.linear(_dropout(pooled, cfg.hidden_dropout_prob), head.classifier.weight, head.classifier.bias)
        _close(logits, expected, "logits", "SequenceClassificationHead in train mode",
               "classifier(dropout(tanh(pooler(h[:, 0])))): dropout before the classifier, with p = hidden_dropout_prob")

    def gradients(cls):
        head = seeded(cls, cfg)
        _gradients(head, dict(hidden_states=h), head, cls.__name__)

    def model():
        student = seeded(TransformerForSequenceClassification, cfg)
        ids = _tokens(2, 5, cfg, seed=12)
        expected = student.head(student.encoder(ids, PADDED))
        _close(student(ids, PADDED), expected, "logits", "TransformerForSequenceClassification",
               "head(encoder(input_ids, attention_mask, token_type_ids))")

    run("heads", [
        ("the LM head: decoder(layer_norm(gelu(dense(h))))", lm_head),
        ("the classification head reads position 0 only", classifier),
        ("TransformerForSequenceClassification = head(encoder(...))", model),
        ("train mode: dropout before the classifier", trained),
        ("gradients of the LM head", lambda: gradients(LanguageModelHead)),
        ("gradients of the classification head", lambda: gradients(SequenceClassificationHead)),
    ], quiet)


def check_decoder(TransformerDecoderLayer, TransformerDecoder, quiet=False):
    cfg = config(**CHECKED)
    x, memory = _randn(2, 5, cfg.hidden_size, seed=13), _randn(2, 5, cfg.hidden_size, seed=14)
    padding = PADDED.bool()

    def layer(cross_mask, where, **torch_masks):
        student = seeded(TransformerDecoderLayer, cfg)
        output = student(x, memory, _causal(5), cross_mask)
        expected = _torch_decoder_layer(student, cfg)(x, memory, tgt_mask=~_causal(5), **torch_masks)
        _close(output, expected, "output", where,
               "three post-LN sub-blocks in order: masked self-attention, cross-attention to "
               "encoder_hidden_states, feed-forward; each x = norm(x + dropout(sub_block(x)))")

    def decoder():
        student = seeded(TransformerDecoder, cfg)
        _layer_count(student, cfg)
        ids = _tokens(2, 5, cfg, seed=15)
        output = student(ids, memory, PADDED, PADDED)
        hidden = student.embeddings(ids)
        for block in student.layers:
            hidden = _torch_decoder_layer(block, cfg)(hidden, memory, tgt_mask=~_causal(5),
                                                      tgt_key_padding_mask=~padding, memory_key_padding_mask=~padding)
        _close(output, hidden, "output", "TransformerDecoder with padding",
               "self-attention needs causal_mask(T) combined with padding_mask(attention_mask) (use &); "
               "cross-attention needs padding_mask(encoder_attention_mask)")

    def trained():
        student = seeded(TransformerDecoderLayer, cfg)
        output = _train_mode(student, lambda: student(x, memory, _causal(5), padding[:, None, None, :]))
        attentions = [(student.self_attention, student.self_attention_norm, None, dict(attn_mask=~_causal(5))),
                      (student.cross_attention, student.cross_attention_norm, memory, dict(key_padding_mask=~padding))]
        expected = _trained_layer(x, cfg, attentions, student.feed_forward, student.output_norm)
        _close(output, expected, "output", "a layer in train mode",
               "dropout on each attention block's output before its residual sum: x = norm(x + dropout(attention(x))), "
               "and none added around the feed-forward block (it applies its own)")

    def gradients():
        student = seeded(TransformerDecoderLayer, cfg)
        _gradients(lambda h, m: student(h, m, _causal(5)), dict(hidden_states=x, encoder_hidden_states=memory), student,
                   "TransformerDecoderLayer")

    run("decoder", [
        ("a layer with a causal mask: the same as torch's post-LN TransformerDecoderLayer",
         lambda: layer(None, "causal self-attention")),
        ("a layer with a padded source", lambda: layer(padding[:, None, None, :], "padded source",
                                                        memory_key_padding_mask=~padding)),
        ("the decoder: causal and padding masks together", decoder),
        ("train mode: dropout after each attention block", trained),
        ("gradients of a layer, with respect to both inputs and every weight", gradients),
    ], quiet)


# A model whose greedy output changes from step to step, whose rows finish at different steps, and whose
# first position's arg-max differs from the last one's: each decoding mistake of the catalog shows.
DECODING_SEED = 1


def check_seq2seq(Seq2SeqTransformer, greedy_decode, quiet=False):
    cfg = config(**CHECKED)
    ids = _tokens(2, 5, cfg, seed=16)
    BOS, PAD, MAX_NEW = 1, 0, 6

    def forward():
        model = seeded(Seq2SeqTransformer, cfg, cfg, seed=DECODING_SEED)
        target, target_mask = _tokens(2, 4, cfg, seed=18), torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
        memory = model.encoder(ids, PADDED)
        expected = model.lm_head(model.decoder(target, memory, target_mask, PADDED))
        _close(model(ids, target, PADDED, target_mask), expected, "logits", "Seq2SeqTransformer with padding",
               "lm_head(decoder(decoder_input_ids, encoder(input_ids, attention_mask), decoder_attention_mask, attention_mask))")

    def decoded(eos, expected=None):
        model = seeded(Seq2SeqTransformer, cfg, cfg, seed=DECODING_SEED)
        with torch.no_grad():
            tokens = greedy_decode(model, ids, PADDED, bos_token_id=BOS, eos_token_id=eos, pad_token_id=PAD,
                                   max_new_tokens=MAX_NEW)
        if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.long or tokens.dim() != 2:
            raise AssertionError(f"greedy_decode should return a (B, L) LongTensor, got {getattr(tokens, 'dtype', type(tokens).__name__)}")
        _observe(f"greedy_decode with eos_token_id={eos}", "tokens", tokens.numpy(), expected)
        if not torch.all(tokens[:, 0] == BOS):
            raise AssertionError("every row should start with bos_token_id")
        return model, tokens

    def arg_max():
        model, tokens = decoded(eos=cfg.vocab_size)  # an id the model never emits: no row finishes
        if tokens.shape != (2, 1 + MAX_NEW):
            raise AssertionError(f"with no EOS, the result should be (B, 1 + max_new_tokens) = (2, {1 + MAX_NEW}), got {tuple(tokens.shape)}")
        with torch.no_grad():
            for step in range(1, tokens.size(1)):
                best = model(ids, tokens[:, :step], PADDED)[:, -1].argmax(-1)
                if not torch.equal(tokens[:, step], best):
                    raise AssertionError(f"token {step} is not the arg-max of the model's logits at the last position "
                                         f"for the tokens before it: got {tokens[:, step].tolist()}, expected {best.tolist()}")
        return tokens

    def stops():
        free = arg_max().tolist()
        # Rows do not affect each other, so with an EOS each row is its free run up to its first EOS, then pads.
        eos = free[0][2]
        ends = [row.index(eos, 1) if eos in row[1:] else None for row in free]
        length = 1 + MAX_NEW if None in ends else 1 + max(ends)
        expected = [row[:length] if end is None else row[:end + 1] + [PAD] * (length - end - 1) for row, end in zip(free, ends)]
        _, tokens = decoded(eos, np.array(expected))
        if tokens.tolist() != expected:
            raise AssertionError(f"with eos_token_id={eos}, expected {expected}, got {tokens.tolist()}: a row holds "
                                 "pad_token_id after its EOS, and decoding stops once every row has emitted EOS")

    def gradients():
        small = config(**{**CHECKED, "num_hidden_layers": 1})  # fewer tensors keep a failing check's search short
        model = seeded(Seq2SeqTransformer, small, small, seed=DECODING_SEED)
        _gradients(model, dict(input_ids=ids, decoder_input_ids=_tokens(2, 4, cfg, seed=18), attention_mask=PADDED),
                   model, "Seq2SeqTransformer")

    run("seq2seq", [
        ("the model: lm_head(decoder(..., encoder(...)))", forward),
        ("greedy decoding takes the arg-max at every step", arg_max),
        ("a row that emits EOS is padded from then on", stops),
        ("gradients with respect to every weight of the model", gradients),
    ], quiet)


# --- the student's progress report ---------------------------------------------------------------


def _through(component, names, passing):
    """ " (it runs your X, which does not pass its own checks yet: ...)" for the SPEC names of earlier parts
    that this component's own code calls and whose checks do not pass; "" when there are none.

    Read from the student's code (the bundle holds no reference to read the course's graph from), and
    from what it calls itself: a part that fails through another names that one, which names the next."""
    from autograder.engine.contract import spec

    used = set()
    for name in component.names:
        used |= _names_read(names[name])
    earlier = [c.id for c in spec.COMPONENTS if c.id != component.id and c.id not in passing and used & set(c.names)]
    if not earlier:
        return ""
    one = len(earlier) == 1
    return (f"  (it runs your {', '.join(earlier)}, which {'does not pass its' if one else 'do not pass their'} "
            f"own checks yet: fix {'it' if one else 'them'} first)")


def _names_read(obj):
    """The global names a function, or a class's methods, read (nested functions and lambdas included)."""
    return set().union(*(code.co_names for code in _codes(obj)))


def _codes(obj):
    """The code objects of a function, or of a class's methods, nested functions and lambdas included."""
    functions = [obj] if callable(obj) and hasattr(obj, "__code__") else []
    if isinstance(obj, type):
        functions = [getattr(v, "__func__", v) for v in vars(obj).values()]
    pending, codes = [f.__code__ for f in functions if hasattr(f, "__code__")], []
    while pending:
        codes.append(pending.pop())
        pending += [c for c in codes[-1].co_consts if hasattr(c, "co_names")]
    return codes


def _raised_in_own_code(error, objects):
    """Whether the NotImplementedError behind error was raised by these objects' own code (a stub of the
    component itself), rather than by an earlier part it calls."""
    trace = error.__cause__.__traceback__ if error.__cause__ else None
    while trace and trace.tb_next:
        trace = trace.tb_next
    return trace is not None and trace.tb_frame.f_code in {code for obj in objects for code in _codes(obj)}


def progress(path):
    """Run every component's public checks on a submission (loaded in this process); returns the report text."""
    from autograder.course import jupyter
    from autograder.engine.contract import spec

    names, problems = jupyter.load_names(path)
    lines = [f"Public checks of {path}", "", f"{'component':<13} public checks"]
    details, passing = [], set()
    for component in spec.COMPONENTS:
        # These checks run the student's own earlier parts (there is no reference here to isolate them with,
        # as the hidden grading does): a part that fails only through one of them is told which.
        missing = [name for name in component.names if name not in names]
        if missing:
            lines.append(f"{component.id:<13} not found: {', '.join(missing)}")
            continue
        through = _through(component, names, passing)
        try:
            globals()[f"check_{component.id}"](*(names[n] for n in component.names), quiet=True)
        except NotStarted as error:
            own = _raised_in_own_code(error, [names[n] for n in component.names])
            lines.append(f"{component.id:<13} not started: {str(error).split(': ', 1)[-1]}{'' if own else through}")
        except Failed as failure:
            lines.append(f"{component.id:<13} {failure.passed}/{failure.total}   FAILED{through}")
            details.append(f"[{component.id}] " + "\n  ".join(([failure.likely] if failure.likely else []) + failure.failures))
        else:
            passing.add(component.id)
            lines.append(f"{component.id:<13} {_passed[0]}/{_passed[0]}   ok")
    lines.append(f"\n{len(passing)} of {len(spec.COMPONENTS)} components pass every public check.")
    lines += [f"note: {problem}" for problem in problems]
    if details:
        lines += ["", *details]
    lines.append("\nThe hidden tests that decide your grade check much more; passing these is a first signal.")
    return "\n".join(lines)
