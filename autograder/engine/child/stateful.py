"""Calls graded with state the wire cannot carry (the generation component's): a draw from a seeded generator, and
attention over a cache that each call leaves for the next. Shared by the child (server.do_call, on the student's code)
and the fixture builder (on the reference), so that both sides set the state up alike. Without gradients, as
generation runs (CONTRACT.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    from collections.abc import Callable, Mapping, Sequence


# {SEEDED: seed} in a call's keyword arguments: a torch.Generator seeded with seed, which the wire carries as its seed.
# Called without the child's or the builder's draw(), the call fails: a run that does not set the generator up draws
# nothing that could be graded.
SEEDED = "$seeded generator"


@torch.no_grad()
def draw(target: Callable[..., object], logits: torch.Tensor, kwargs: Mapping[str, object]) -> object:
    """target(logits, **kwargs), each {SEEDED: seed} among kwargs a generator seeded with seed. On the CPU whatever
    the grading's device: a CUDA generator draws other numbers than the CPU's that the expected draws come from."""
    seeded = {
        name: torch.Generator().manual_seed(int(value[SEEDED]))
        if isinstance(value, dict) and SEEDED in value
        else value
        for name, value in kwargs.items()
    }
    return target(logits.cpu(), **seeded)


@torch.no_grad()
def cached(
    target: Callable[..., object],
    attention: torch.nn.Module,
    hidden_states: torch.Tensor,
    spans: Sequence[Sequence[int]],
) -> list[dict[str, object]]:
    """target(attention, hidden_states[:, start:end], cache) for each (start, end) of spans in turn, on one cache,
    empty at first, the module in eval mode: per call, what it returned and the cache's "key" and "value" after it
    (None where the cache holds none)."""
    torch.nn.Module.eval(attention)
    cache: dict[object, object] = {}
    calls = []
    for start, end in spans:
        output = target(attention, hidden_states[:, start:end], cache)
        calls.append({"output": output, "key": _copy(cache.get("key")), "value": _copy(cache.get("value"))})
    return calls


def _copy(value: object) -> object:
    """A tensor as it is now, whatever a later call does to it in place."""
    return torch.Tensor.clone(value) if type(value) is torch.Tensor else value
