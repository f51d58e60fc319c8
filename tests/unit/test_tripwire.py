"""The tripwire's rule, in this process: what torch's own Python code runs while the function mode has stepped aside
is watched at the dispatcher (child/tripwire.py, docs/THREATS.md). Each callback route of issue 47's fourth wave, and
one that runs no Python code of the student's on the way, is tried against every kind of kernel a component may not
delegate to; the system tests grade three of them (tests/system/test_hostile.py)."""

import copy

import pytest
import torch
from torch.nn import functional as F

from autograder.engine.child.tripwire import Tripwire, Unwatched
from autograder.engine.contract import spec

X = torch.randn(2, 3, 8)
NORMALISATION = spec.BY_ID["layernorm"].forbidden
ATTENTION = spec.BY_ID["attention"].forbidden
# Each kernel as a student would call it, with what its component may not delegate to.
KERNELS = {
    "layer_norm": (NORMALISATION, lambda: F.layer_norm(X, (8,))),
    "group_norm": (NORMALISATION, lambda: F.group_norm(X, 1)),
    "rms_norm": (NORMALISATION, lambda: torch.rms_norm(X, (8,))),
    "scaled_dot_product_attention": (ATTENTION, lambda: F.scaled_dot_product_attention(X, X, X)),
    "MultiheadAttention": (ATTENTION, lambda: torch.nn.MultiheadAttention(8, 2, batch_first=True)(X, X, X)[0]),
    "TransformerEncoderLayer": (ATTENTION, lambda: torch.nn.TransformerEncoderLayer(8, 2, batch_first=True).eval()(X)),
}


def hashed_key(run):
    """Tensor.__deepcopy__ copies the tensor's __dict__, hashing its keys."""
    found = {}

    class Key:
        def __hash__(self):
            if found:
                found["out"] = run()
            return 0

    carrier = torch.zeros(1)
    carrier.__dict__[Key()] = None
    found["armed"] = True
    copy.deepcopy(carrier)
    return found["out"]


def compared_key(run):
    """Tensor.__deepcopy__ asks whether its id is in the memo: a key with the same hash is compared."""
    found = {}
    carrier = torch.zeros(1)

    class Key:
        def __hash__(self):
            return hash(id(carrier))

        def __eq__(self, other):
            found["out"] = run()
            return False

    carrier.__deepcopy__({Key(): None})
    return found["out"]


def reduced(run):
    """copy rebuilds an attribute of the tensor from its __reduce_ex__: it calls what that returns."""

    class Reduced:
        def __reduce_ex__(self, protocol):
            return (run, ())

    carrier = torch.zeros(1)
    carrier.result = Reduced()
    return copy.deepcopy(carrier).result


def reduced_by_c_code(run):
    """The same, with no Python code of the student's on the way: a dict's bound get is the __reduce_ex__."""

    class Reduced:
        pass

    Reduced.__reduce_ex__ = {4: (run, ())}.get
    carrier = torch.zeros(1)
    carrier.result = Reduced()
    return copy.deepcopy(carrier).result


def other_objects_torch_function(run):
    """torch's F.layer_norm, rebuilt by copy, hands the call to its argument's own __torch_function__."""

    class Handler:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return run()

    class Reduced:
        pass

    Reduced.__reduce_ex__ = {4: (F.layer_norm, (Handler(), (8,)))}.get
    carrier = torch.zeros(1)
    carrier.result = Reduced()
    return copy.deepcopy(carrier).result


ATTACKS = [hashed_key, compared_key, reduced, reduced_by_c_code, other_objects_torch_function]


def watched(forbidden, call):
    """The tripwire after call ran under it, with whatever its refusal raised swallowed (as a student's code would)."""
    tripwire = Tripwire(forbidden, {})
    try:
        with tripwire:
            call()
    except Unwatched:
        pass
    return tripwire


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda attack: attack.__name__)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_a_kernel_run_where_torchs_python_code_calls_back_is_named_or_refused(attack, kernel):
    forbidden, run = KERNELS[kernel]
    tripwire = watched(forbidden, lambda: attack(run))
    assert tripwire.kernels or tripwire.refused


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda attack: attack.__name__)
def test_the_student_s_own_code_run_there_is_refused_too(attack):
    """What the student's code computes where the function mode cannot name what it calls is refused, kernel or not."""
    tripwire = watched((), lambda: attack(lambda: (X - X.mean(-1, keepdim=True)) / X.std(-1, keepdim=True)))
    assert tripwire.refused and "runs Python code inside a torch call" in tripwire.refused


def test_torchs_own_python_code_is_not_refused():
    """What honest code makes torch run in Python: copies, printing, a backward pass, einsum, torch's own modules. None
    is a normalisation, so nothing is named either."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(), torch.nn.Dropout(0.1))
    weight = torch.nn.Parameter(torch.ones(8))
    weight.tag = "shared"

    def honest():
        twin = copy.deepcopy(model)
        copy.deepcopy(weight)
        copy.deepcopy(X)
        twin(X).sum().backward()
        torch.nn.MultiheadAttention(8, 2, batch_first=True)(X, X, X)[0].sum().backward()
        return str(X), f"{X[0, 0, 0]:.3f}", X.split(1), torch.einsum("bij,bkj->bik", X, X), 1 - X, X.norm()

    tripwire = watched(NORMALISATION, honest)
    assert tripwire.refused is None and tripwire.kernels == []
