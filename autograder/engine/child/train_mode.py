"""Train mode, made gradable: dropout replaced by a deterministic stand-in, and one backward pass.

The hidden suites compare what a module returns in train mode, and the gradients of one backward pass,
with what the reference and Hugging Face BERT give. Real dropout draws random numbers, so while these runs
last every dropout call (an nn.Dropout module, F.dropout, torch.dropout) computes `stand_in` instead, in
the student's run and in the runs that made the expected values alike. The stand-in is a smooth function
of each element and p alone: the same whatever the tensor's layout, however the heads are split, looped
over or chunked, so only where dropout is applied, and with which p, changes the result. With p = 0, or
training=False, the input comes back as it went in, as from dropout.

Shared by the child (in the jail, on the student's code) and the fixture builder (on the reference and on
Hugging Face's models), so that both sides train alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import torch
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

from autograder.engine.contract.messages import FROZEN

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Collection, Mapping, Sequence

# sin(FREQUENCY * x) turns several times over attention probabilities in [0, 1]; the stand-in's slope stays
# within 1 ± p and its curvature within p * FREQUENCY, so float32's rounding in x moves a gradient no more
# than it moves any other elementwise function's.
FREQUENCY = 4.0
# The dropout functions the stand-in replaces, with their parameter names in order.
DROPOUTS = {
    F.dropout: ("input", "p", "training", "inplace"),
    torch.dropout: ("input", "p", "training"),
    torch.dropout_: ("input", "p", "training"),
}
DEFAULTS = {"p": 0.5, "training": True, "inplace": False}


def stand_in(x: torch.Tensor, p: float) -> torch.Tensor:
    """What dropout with probability p does to x while graded: x + p·sin(FREQUENCY·x) / FREQUENCY, elementwise.

    Nonlinear, so that it does not pass through a linear layer unchanged (dropout before linear2 and after it
    differ), and increasing (its slope is at least 1 - p), so that it never stops a gradient.
    """
    return x + (p / FREQUENCY) * torch.sin(FREQUENCY * x)


class StandInDropout(TorchFunctionMode):
    """Every dropout call inside it computes stand_in; every other torch function runs as it would."""

    def __torch_function__(
        self,
        func: Callable[..., object],
        types: Collection[type],
        args: Sequence[object] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> object:
        kwargs = kwargs or {}
        names = DROPOUTS.get(func)
        if names is None:
            return func(*args, **kwargs)
        call: dict[str, object] = {**DEFAULTS, **dict(zip(names, args)), **kwargs}
        x, p = call["input"], call["p"]
        # Anything dropout itself would refuse or leave alone is left to dropout itself.
        if not (call["training"] and isinstance(x, torch.Tensor) and isinstance(p, (int, float)) and 0 <= p <= 1):
            return func(*args, **kwargs)
        if call["inplace"] or func is torch.dropout_:
            return x.add_((p / FREQUENCY) * torch.sin(FREQUENCY * x))
        return stand_in(x, p)


def leaf(value: object) -> object:
    """A float tensor argument as a new leaf whose gradient is recorded; any other argument as it is."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().clone().requires_grad_()
    return value


def outputs(result: object) -> list[object]:
    """The values a call returned, in order: a tuple's items, or the one value."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def backward(result: object, upstream: Sequence[torch.Tensor | None]) -> list[bool]:
    """One backward pass from the result: the gradient of the sum over outputs of <output, upstream>.

    upstream holds one gradient per output, None for an output that is not differentiated. An output that
    is not a tensor, carries no graph (computed under torch.no_grad(), or detached) or has another shape is
    left out: the checks of the outputs say what is wrong with it. Returns, per output, whether it carried
    a graph.
    """
    values = outputs(result)
    graph = [isinstance(v, torch.Tensor) and v.requires_grad for v in values]
    pairs = [
        (v, g.to(v.dtype))
        for v, g in zip(values, upstream)
        if isinstance(v, torch.Tensor) and v.requires_grad and g is not None and v.shape == g.shape
    ]
    if pairs:
        # The gradient of (v * g).sum() at v is g itself, exactly. Passing g to backward() instead would do the
        # same, but the first such call in a process imports sympy, a slow import, and every child is a new process.
        cast(torch.Tensor, sum((v * g).sum() for v, g in pairs)).backward()
    return graph


def run(
    target: Callable[..., object],
    args: Sequence[object],
    kwargs: Mapping[str, object],
    upstream: Sequence[torch.Tensor | None],
    module: torch.nn.Module | None = None,
) -> tuple[object, list[object], dict[str, object], list[bool]]:
    """Call target in train mode with dropout's stand-in, on leaf copies of its float tensor arguments, and
    backpropagate upstream through what it returns.

    module is whose parameters are trained (target itself when it is a module); it is put in train mode
    with its gradients cleared. Returns (result, args, kwargs, graph): the leaves hold the inputs'
    gradients, and graph says which outputs carried one.
    """
    module = target if module is None and isinstance(target, torch.nn.Module) else module
    if module is not None:
        module.train()
        module.zero_grad(set_to_none=True)
    leaves, named = [leaf(a) for a in args], {k: leaf(v) for k, v in kwargs.items()}
    with torch.enable_grad(), StandInDropout():
        # Each input reaches target as the output of an operation, as activations do in a model: code that
        # changes it in place then trains as it would there (a leaf would refuse), and the leaf keeps its gradient.
        result = target(*map(_activation, leaves), **{k: _activation(v) for k, v in named.items()})
        graph = backward(result, upstream)
    return result, leaves, named, graph


def _activation(value: object) -> object:
    return value.clone() if isinstance(value, torch.Tensor) and value.requires_grad else value


def parameter_gradients(module: torch.nn.Module) -> dict[str, object]:
    """{name: its gradient after backward, None where none reached it, or messages.FROZEN where it does not
    require grad}, under every name it has (runtime.load_parameters reads the contract's names as attribute paths)."""
    return {
        name: FROZEN if not p.requires_grad else p.grad
        for name, p in torch.nn.Module.named_parameters(module, remove_duplicate=False)
    }
