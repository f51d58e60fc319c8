"""Calls graded by their effect (the training component's): the student's function changes state, gradients or
weights, that is read back after it. Shared by the child (server.do_effect, on the student's code) and the fixture
builder (on the reference and on torch's own clipping), so that both sides set the state up alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from autograder.engine.child import train_mode

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Iterable, Mapping, Sequence

STALE_SEED = 48  # the gradients an earlier step left behind, which a step must not add to


def clip(
    target: Callable[..., object], values: Sequence[torch.Tensor], grads: Sequence[torch.Tensor | None], max_norm: float
) -> tuple[object, list[torch.Tensor | None]]:
    """target(parameters, max_norm) on parameters holding these values and gradients (None: no gradient), handed
    over as a generator, as model.parameters() is: (what it returned, every gradient after the call)."""
    parameters = []
    for value, grad in zip(values, grads, strict=True):
        parameter = torch.nn.Parameter(value.clone())
        parameter.grad = None if grad is None else grad.clone()
        parameters.append(parameter)
    result = target(iter(parameters), max_norm)
    return result, [parameter.grad for parameter in parameters]


class SGD:
    """Plain SGD over parameters, as torch.optim.SGD(parameters, lr) steps without momentum. torch's own wraps each
    step in its profiler, whose handle the tripwire refuses to see passed to torch; this one is the kit's."""

    def __init__(self, parameters: Iterable[torch.Tensor], lr: float) -> None:
        self.parameters = list(parameters)
        self.lr = lr

    def zero_grad(self, set_to_none: bool = True) -> None:
        for parameter in self.parameters:
            if set_to_none:
                parameter.grad = None
            elif parameter.grad is not None:
                parameter.grad.zero_()

    @torch.no_grad()
    def step(self) -> None:
        for parameter in self.parameters:
            if parameter.grad is not None:
                parameter.add_(parameter.grad, alpha=-self.lr)


def step(
    target: Callable[..., object],
    model: torch.nn.Module,
    batch: Sequence[torch.Tensor],
    learning_rate: float,
    kwargs: Mapping[str, object],
) -> tuple[object, dict[str, torch.Tensor], bool]:
    """target(model, optimizer, batch, **kwargs), the model in eval mode before it, every parameter holding a seeded
    gradient as an earlier step leaves one, the optimizer plain SGD (SGD), dropout its deterministic stand-in
    (train_mode.py): (what it returned, every parameter after the call by name, whether the model is in train mode)."""
    model.eval()
    generator = torch.Generator().manual_seed(STALE_SEED)
    for parameter in torch.nn.Module.parameters(model):
        stale = torch.randn(parameter.shape, generator=generator, dtype=torch.float64)
        parameter.grad = stale.to(dtype=parameter.dtype, device=parameter.device)
    optimizer = SGD(torch.nn.Module.parameters(model), lr=learning_rate)
    with train_mode.StandInDropout():
        result = target(model, optimizer, tuple(batch), **kwargs)
    return result, dict(torch.nn.Module.named_parameters(model)), model.training
