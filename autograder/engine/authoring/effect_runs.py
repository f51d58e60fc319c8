"""The cases that are not one plain call, run on the reference with a mistake's edits as the child runs a student's
code there: the training component's schedule step by step, its clipping and training step by their effect
(child/effects.py), and the generation component's calls with state the wire cannot carry, a seeded draw and
attention call after call on one cache (child/stateful.py). What each returns is what the hidden suite observes of a
student's (suites/test_training.py, suites/test_generation.py), so the diagnosis holds one to the other. Hashed for
those two components alone (inputs.COMPUTES_OF): no other component's cases are of these kinds."""

import numpy as np
import torch

from autograder.engine.authoring import mutants
from autograder.engine.child import effects, runtime, stateful

KINDS = ("schedule", "clip", "step", "draw", "cache")


def run_case(names, case, dtype):
    """{output: array} of one case of KINDS, in the run's dtype (None: the default, float32)."""
    torch_dtype = mutants.DTYPES.get(dtype, torch.float32)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch_dtype)
    try:
        return _RUNS[case.kind](names[case.target], names, case, dtype, torch_dtype)
    finally:
        torch.set_default_dtype(previous)


def _schedule(target, names, case, dtype, torch_dtype):
    meta = case.meta
    rates = [target(step, meta["peak"], meta["warmup_steps"], meta["total_steps"]) for step in meta["steps"]]
    if not all(isinstance(rate, (int, float)) and not isinstance(rate, bool) for rate in rates):
        raise TypeError("not a number")
    return {"rates": np.array(rates, dtype=np.float64)}


def _clip(target, names, case, dtype, torch_dtype):
    values = [_tensor(case.inputs[name], torch_dtype) for name in case.meta["values"]]
    grads = [None if name is None else _tensor(case.inputs[name], torch_dtype) for name in case.meta["grads"]]
    norm, after = effects.clip(target, values, grads, case.kwargs["max_norm"])
    found = {"norm": _array(norm)}
    for name, grad in zip(case.meta["grads"], after, strict=True):
        if name is not None:
            found[name] = _array(grad)
    return found


def _step(target, names, case, dtype, torch_dtype):
    model = mutants.instantiate(names[case.meta["model"]["target"]], case.meta["model"]["init"])
    runtime.load_parameters(model, case.params)
    model.to(torch_dtype)
    args, kwargs = case.call_args(dtype)
    batch = [_tensor(value, torch_dtype) for value in args]
    loss, params, _ = effects.step(target, model, batch, case.meta["learning_rate"], kwargs)
    if isinstance(loss, bool) or not isinstance(loss, (int, float)):
        raise TypeError("not a number")
    # In the run's dtype, as the suite keeps the number the step returns: held to the case as a tensor would be.
    loss = np.array(loss, dtype=dtype or np.float64)
    return {"loss": loss, **{name: _array(value) for name, value in params.items()}}


def _draw(target, names, case, dtype, torch_dtype):
    (logits,), kwargs = case.call_args(dtype)
    return {"tokens": _array(stateful.draw(target, _tensor(logits, torch_dtype), kwargs))}


def _cache(target, names, case, dtype, torch_dtype):
    """Each call's output and the cache's key and value after it, named as the case's outputs are."""
    model = mutants.instantiate(names[case.meta["model"]["target"]], case.meta["model"]["init"])
    runtime.load_parameters(model, case.params)
    model.to(torch_dtype)
    hidden_states = _tensor(case.inputs["hidden_states"], torch_dtype)
    calls = stateful.cached(target, model, hidden_states, case.meta["spans"])
    return {f"{name}{i}": _array(call[name]) for i, call in enumerate(calls) for name in ("output", "key", "value")}


def _tensor(array, torch_dtype):
    tensor = torch.from_numpy(np.array(array))
    return tensor.to(torch_dtype) if tensor.is_floating_point() else tensor


def _array(value):
    if not isinstance(value, torch.Tensor):
        raise TypeError("not a tensor")
    return value.detach().cpu().numpy()


_RUNS = {"schedule": _schedule, "clip": _clip, "step": _step, "draw": _draw, "cache": _cache}
