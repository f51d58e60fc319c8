"""What a child sends the judge of what student code returned: plain data (arrays, numbers, text, lists), read by
exact type with torch's and Python's own methods, so that nothing of the student's runs while it is read."""

from typing import cast

import torch

from autograder.engine.contract import messages

# What a result may be, by exact type: a subclass's methods (its own detach(), numpy() or __iter__) would run
# the student's code while the judge reads it.
TENSORS = (torch.Tensor, torch.nn.Parameter)
SEQUENCES = {list: list.__iter__, tuple: tuple.__iter__}
SCALARS = (bool, int, float, str, type(None))


def plain(value: object) -> object:
    """Results -> plain data; a tensor keeps its torch dtype name for the judge's checks. Read by exact type,
    with torch's and Python's own methods: nothing of a subclass's runs. A NamedTuple is read as its tuple."""
    kind = type(value)
    if kind in TENSORS:
        value = torch.Tensor.detach(cast("torch.Tensor", value))  # exactly a tensor: kind says so
        array = value.cpu().float().numpy() if value.dtype == torch.bfloat16 else value.cpu().numpy()
        return {
            messages.TENSOR: array.copy(),
            "dtype": str(value.dtype).removeprefix("torch."),
            "device": value.device.type,
        }
    if issubclass(kind, torch.Tensor):
        raise TypeError(f"it returned a {kind.__name__}, a subclass of torch.Tensor: return a plain tensor")
    for sequence, iterate in SEQUENCES.items():
        if issubclass(kind, sequence):
            return [plain(v) for v in iterate(value)]
    if kind in SCALARS:
        return value
    return {messages.OTHER: kind.__name__}


def gradient(value: object) -> object:
    """The gradient an input leaf (train_mode.leaf) holds after backward, as plain data; None where there is none."""
    return plain(value.grad) if type(value) is torch.Tensor and value.requires_grad else None


def answer(value: object) -> object:
    """A quiz answer (server.answers): a number, a text, or texts; any other value by its type's name."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in value):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return {messages.OTHER: type(value).__name__}
