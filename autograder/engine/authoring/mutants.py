"""The reference with a mistake's edits made in one component's file, and its runs on a case as the child runs
a student's code: in eval mode (run_case) or in train mode, with the gradients (train_case)."""

from functools import cache
from types import SimpleNamespace

import numpy as np
import torch

from autograder.engine.authoring import effect_runs, mistakes
from autograder.engine.child import runtime, train_mode
from autograder.engine.contract import loader, spec
from autograder.engine.contract.messages import CONFIG, DEVICE, FROZEN

DTYPES = {"float32": torch.float32, "float64": torch.float64}


@cache
def _solutions():
    return loader.load(spec.SOLUTIONS).as_message()


def names_with(component, edits):
    """The reference's SPEC names, with component's file edited."""
    message = _solutions()
    label = spec.BY_ID[component].reference.name
    units = [
        dict(unit, code=mistakes.apply(unit["code"], edits)) if unit["label"] == label else unit
        for unit in message["units"]
    ]
    return runtime.load_reference(dict(message, units=units), spec.ALL_NAMES)


def run_case(names, case, dtype):
    """What the names return on the case, run as the child runs a student's code: {output: array}, or the
    grader's message when the case's weights do not fit the module."""
    if case.kind in effect_runs.KINDS:  # not one plain call: training's by their effect, generation's with state
        return effect_runs.run_case(names, case, dtype)

    def call(target, args, kwargs):
        with torch.no_grad():
            return target(*args, **kwargs), args, kwargs

    ran = _run(names, case, dtype, call)
    if isinstance(ran, str):
        return ran
    _, values, _, _ = ran
    return {name: value.detach().cpu().numpy() for name, value in zip(case.outputs, values)}


def train_case(names, case, dtype):
    """What the names give on the case in train mode, as the child runs a student's code there: the outputs
    graded in train mode, then "NAME.grad" of every float input and parameter, an array or why none came."""
    upstream = [torch.from_numpy(case.upstream[name]) if name in case.upstream else None for name in case.outputs]
    ran = _run(names, case, dtype, lambda target, args, kwargs: train_mode.run(target, args, kwargs, upstream)[:3])
    if isinstance(ran, str):
        return ran
    target, values, args, kwargs = ran
    found = {name: value.detach().numpy() for name, value in zip(case.outputs, values) if name in case.upstream}
    grads: dict[str, object] = {
        name: value.grad
        for name, value in case.filled(args, kwargs).items()
        if isinstance(value, torch.Tensor) and value.is_floating_point()
    }
    if isinstance(target, torch.nn.Module):
        grads.update(train_mode.parameter_gradients(target))
    for name, grad in grads.items():
        found[f"{name}.grad"] = (
            "frozen" if grad is FROZEN else "none" if not isinstance(grad, torch.Tensor) else grad.detach().numpy()
        )
    return found


def _run(names, case, dtype, call):
    """call(target, args, kwargs) -> (result, args, kwargs as the call left them) on the case, its modules
    built with their weights in the run's dtype (eval mode; train_mode.run puts its own in train mode), new
    tensors in that dtype, as in the child. Returns (target, the outputs, args, kwargs), or the grader's
    message when the case's weights do not fit."""
    torch_dtype = DTYPES.get(dtype, torch.float32)
    args, kwargs = case.call_args(dtype)
    target = names[case.target]
    modules = []
    if case.init is not None:
        target = _built(names[case.target], case.init, case.params)
        modules.append(target)
    if case.kind == "generate":
        model = case.meta["model"]
        args[0] = _built(names[model["target"]], model["init"], case.params)
        modules.append(args[0])
    for module in modules:
        if isinstance(module, str):
            return module
        module.to(torch_dtype).eval()
    args, kwargs = [_tensor(a, torch_dtype) for a in args], {k: _tensor(v, torch_dtype) for k, v in kwargs.items()}
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch_dtype)
    try:
        result, args, kwargs = call(target, args, kwargs)
    finally:
        torch.set_default_dtype(previous)
    values = train_mode.outputs(result)
    if len(values) != len(case.outputs) or not all(isinstance(v, torch.Tensor) for v in values):
        raise TypeError("not the outputs the case names")
    return target, values, args, kwargs


def instantiate(module_class, init):
    """module_class built from a case's init list, whose configs are {CONFIG: {...}}."""
    return module_class(*[SimpleNamespace(**a[CONFIG]) if isinstance(a, dict) else a for a in init])


def _built(module_class, init, params):
    module = instantiate(module_class, init)
    if not params:  # a case without weights keeps the module's own (suites/running.build)
        return module
    try:
        runtime.load_parameters(module, params)
    except LookupError as error:
        return runtime.describe(error)
    return module


def _tensor(value, dtype):
    if isinstance(value, np.ndarray):
        tensor = torch.from_numpy(np.array(value))
        return tensor.to(dtype) if tensor.is_floating_point() else tensor
    if isinstance(value, dict) and DEVICE in value:
        return torch.device(value[DEVICE])
    return value
