"""Every numeric tolerance the hidden suites use, in one table.

An output passes where |actual - expected| <= atol + rtol * |expected|, elementwise, against a float64
truth (the reference, or Hugging Face, run in float64 on the same float32-exact inputs and weights).

Measured with the reference on every fixture case (`python benchmarks/tolerance_headroom.py`, which
prints each component's worst error as a share of what is allowed):
- float32 runs differ from the truth by at most 7.9e-6 (seq2seq logits of magnitude up to 18; most
  outputs by under 1e-6), 6% of what atol 5e-5 / rtol 1e-4 allows. That margin is for other correct
  ways to sum (per-head loops, einsum, CUDA kernels, a real checkpoint: all-MiniLM-L6-v2's six layers
  use 23%), and the tolerance is still 20 times smaller than the smallest near-miss it must catch:
  GELU's tanh approximation moves outputs by 1e-3.
- float64 runs differ by at most 1.1e-14. atol 1e-10 / rtol 1e-9 separates correct code from code
  that is right only to float32 precision (a hidden .float(), a rounded sqrt(2) or 1/sqrt(Dh)).

Every comparison asks tolerance(dtype, component), as torch.testing.assert_close picks its defaults by dtype:
TOLERANCES is every component's, unless OVERRIDES holds another for the component in that dtype (none does
today). The prose that quotes a tolerance is held to this table by tests/test_docs.py.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np
    import torch

# What a tolerance is applied to: a number, an array, or a tensor (the notebooks' comparisons, course/minilm.py).
Values = TypeVar("Values", float, "np.ndarray", "torch.Tensor")


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float

    def __str__(self) -> str:
        return f"|difference| <= {self.atol:g} + {self.rtol:g}·|expected|"

    def slack(self, expected: Values) -> Values:
        """The difference allowed at each element of expected."""
        return self.atol + self.rtol * abs(expected)


TOLERANCES = {
    "float32": Tolerance(rtol=1e-4, atol=5e-5),
    "float64": Tolerance(rtol=1e-9, atol=1e-10),
}
# (component id, dtype): a tolerance other than TOLERANCES[dtype] for that component's outputs.
OVERRIDES: dict[tuple[str, str], Tolerance] = {}


def tolerance(dtype: str | None, component: str) -> Tolerance:
    """What an output of component (or of one of its steps) is held to in dtype. dtype None is an output that
    takes no float input (the sinusoidal table), which may come back in float32 or float64: float32's."""
    dtype = dtype or "float32"
    return OVERRIDES.get((component, dtype), TOLERANCES[dtype])
