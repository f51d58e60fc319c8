"""Naming a student's mistake from the numbers, as a tutor would: "Likely mistake: ...".

The fixture builder ran every cataloged mistake (engine/authoring/mistakes/), and every pair of mistakes in one
component, on the same cases a student's code runs on, and stored what each returned: its evidence. Here a
student's observations (what their code returned on each case, and whether that passed) are held against
each entry's evidence. An entry is named when it alone agrees with every observation it has evidence for,
within the tolerance that grades it, and explains at least one that failed. Two entries that both agree,
unless one is a single mistake that the other merely adds to, mean no diagnosis: a wrong one is worse
than none. A mistake that stands for a family (the same mistake made at other sites or other ways, whose
numbers differ) has an entry for each member, all with the one mistake as their parts: entries that agree
and name the same parts are one diagnosis, and the family's sentence is said. The sentence is looked up by the
mistake's id in the table of them (hints.likely), never stored with the evidence.

Evidence for one case is one of:
- "right": the mistake passes here, so the student must pass too;
- "values": the mistake's outputs at sampled elements (every element of a small output, else SAMPLES
  seeded ones and always the one farthest from the expected value), with their shape;
- "failure": the message the grader gives when the mistake's module cannot take the case's weights;
- "dropout": the outputs are the expected ones with elements zeroed and the rest scaled by one factor.
No evidence (the mistake raised there) says nothing. A case run in train mode is a case of its own, keyed
trained(case id), whose outputs are the train-mode outputs and the gradients ("NAME.grad"); its "values"
evidence also names the gradients that never came ("absent": "none", or "frozen" for a parameter that does
not require grad), which a student's run must lack alike. Evidence files are generated beside the cases they
are made on (authoring/evidence.py): the hidden suites', generated/fixtures/<component>.mistakes.*, stay with the instructors;
the public checks', generated/public_cases/<component>.mistakes.*, ship with the student bundle.
"""

import functools
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from autograder.engine.judge import hints
from autograder.engine.judge.tolerances import Tolerance, tolerance

# The evidence files' JSON, as authoring/evidence.py writes it.
JSON = Any

LIKELY_MISTAKE = "Likely mistake: "
SEPARATOR = "|"
SAMPLES = 32


def trained(key: str) -> str:
    """The key of a case's train-mode observation: its outputs and gradients (suites/train_checks.check_training)."""
    return f"{key}{SEPARATOR}train"


@dataclass
class Observation:
    """What a student's code returned on one case (outputs), or the grader's message when it could not run it."""

    key: str
    dtype: str | None  # the run's float dtype; None where no float goes in
    passed: bool
    outputs: dict[str, np.ndarray] | None = None  # output name -> array
    expected: dict[str, np.ndarray] = field(default_factory=dict)
    failure: str | None = None
    # In train mode, "NAME.grad" -> "none" or "frozen" where no gradient came.
    absent: dict[str, str] = field(default_factory=dict)


class Evidence:
    """Every entry's evidence for one set of cases, as the builder wrote it (a .json and a .npz file)."""

    def __init__(self, path: str | Path) -> None:
        # entry id -> {"component", "parts" (the ids of its mistakes), "evidence": {key: {...}}}
        self.entries: dict[str, JSON] = json.loads(Path(f"{path}.json").read_text())["entries"]
        with np.load(f"{path}.npz", allow_pickle=False) as arrays:
            self.arrays = dict(arrays)
        # (entry id, case key, output name) -> whether the mistake computes it in float32
        self._in_float32: dict[tuple[str, str, str], bool] = {}

    def line(self, entry_id: str) -> str:
        parts: list[str] = self.entries[entry_id]["parts"]
        if len(parts) == 1:
            return LIKELY_MISTAKE + hints.likely(parts[0])
        return LIKELY_MISTAKE + "two at once: " + " ".join(f"({n}) {hints.likely(p)}" for n, p in enumerate(parts, 1))

    def diagnose(self, component: str, observations: Sequence[Observation]) -> str | None:
        """The "Likely mistake: ..." line for these observations of component's code, or None."""
        if all(o.passed for o in observations):
            return None
        candidates = [
            entry_id
            for entry_id, entry in self.entries.items()
            if entry["component"] == component and self._explains(entry_id, entry["evidence"], observations)
        ]
        # Entries with the same parts are one mistake: members of a family, which its one sentence tells.
        named = {tuple(self.entries[c]["parts"]): c for c in candidates}
        if len(named) == 1:
            return self.line(next(iter(named.values())))
        singles = [parts for parts in named if len(parts) == 1]
        if len(singles) == 1 and all(singles[0][0] in parts for parts in named):
            return self.line(named[singles[0]])
        return None

    def _explains(self, entry_id: str, evidence: JSON, observations: Sequence[Observation]) -> bool:
        explained = False
        rounding = self._float32_rounding(entry_id, evidence, observations)
        for observation in observations:
            found = evidence.get(observation.key)
            if found is None:
                continue
            if not self._agrees(entry_id, observation, found, rounding):
                return False
            explained = explained or (not observation.passed and found["kind"] != "right")
        return explained

    def _float32_rounding(self, entry_id: str, evidence: JSON, observations: Sequence[Observation]) -> bool:
        """True for a mistake that computes in float32: somewhere in the student's float64 runs its values are the
        expected ones to float32's precision and not to float64's. Its digits beyond float32's are the rounding
        of whichever CPU built the evidence, and a float64 run is held to its values with float32's tolerance
        (a mistake that is also wrong beyond float32's precision is still told apart at that tolerance)."""
        for observation in observations:
            found = evidence.get(observation.key)
            if (
                observation.dtype != "float64"
                or found is None
                or found["kind"] != "values"
                or observation.outputs is None
            ):
                continue
            for name, about in found["outputs"].items():
                expected, actual = observation.expected.get(name), observation.outputs.get(name)
                if expected is None or actual is None or about["kind"] != "f" or np.shape(expected) != actual.shape:
                    continue
                if self._computes_in_float32(entry_id, observation.key, name, about, expected):
                    return True
        return False

    def _computes_in_float32(self, entry_id: str, key: str, name: str, about: JSON, expected: np.ndarray) -> bool:
        """Whether the mistake's own values of an output are the expected ones to float32's precision and not to
        float64's: the same for every student, so kept once found (every diagnosis asks it of every entry)."""
        found = (entry_id, key, name)
        if found not in self._in_float32:
            index, values = self._kept(entry_id, key, name, about, np.size(expected))
            truth = np.asarray(expected, np.float64).reshape(-1)[index]
            component = self.entries[entry_id]["component"]
            self._in_float32[found] = agree(values, truth, tolerance("float32", component)) and not agree(
                values, truth, tolerance("float64", component)
            )
        return self._in_float32[found]

    def _agrees(self, entry_id: str, observation: Observation, found: JSON, rounding: bool = False) -> bool:
        kind = found["kind"]
        if kind == "failure" or observation.outputs is None:
            return bool(kind == "failure" and observation.failure == found["message"])
        if kind == "right":
            return observation.passed
        allowed = tolerance(
            "float32" if rounding and observation.dtype == "float64" else observation.dtype,
            self.entries[entry_id]["component"],
        )
        if kind == "dropout":
            return all(
                name in observation.outputs
                and dropped_out(observation.outputs[name], observation.expected[name], allowed)
                for name in found["outputs"]
            )
        if found.get("absent", {}) != observation.absent:  # which gradients never came, and why, must match too
            return False
        for name, about in found["outputs"].items():
            actual = observation.outputs.get(name)
            if actual is None or list(actual.shape) != about["shape"] or actual.dtype.kind != about["kind"]:
                return False
            if observation.dtype == "float32" and not about["float32"]:
                continue
            index, values = self._kept(entry_id, observation.key, name, about, actual.size)
            if not agree(actual.reshape(-1)[index], values, allowed, exact=about["kind"] != "f"):
                return False
            if rounding and observation.dtype == "float64" and not _nearer(actual, observation, name, index, values):
                return False
        return True

    def _kept(self, entry_id: str, key: str, name: str, about: JSON, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(the indices of the elements the evidence kept of one output of this size, the mistake's values there)."""
        index = sample(SEPARATOR.join((entry_id, key, name)), size, about["extra"])
        return index, self.arrays[entry_id][about["offset"] : about["offset"] + index.size]


def _nearer(actual: np.ndarray, observation: Observation, name: str, index: np.ndarray, values: np.ndarray) -> bool:
    """For a mistake that differs from the reference by float32's rounding alone, held at float32's tolerance: whether
    its numbers explain the student's, where the two differ from the expected values. Any code that rounds to float32
    somewhere agrees with such a mistake to float32's tolerance (a softmax run in float32 was told "sqrt(Dh) is a
    float32 tensor"); the mistake explains it only where the student's values are nearer its own than the expected
    ones (its rounding, made again), or where it moves them as far as the student's code did, within a factor of two
    (the same float32 function rounded by another CPU's library). A rounding many times the mistake's is not its."""
    expected = observation.expected.get(name)
    if expected is None or np.shape(expected) != actual.shape:
        return True
    truth = np.asarray(expected, np.float64).reshape(-1)[index]
    kept = actual.reshape(-1)[index].astype(np.float64)
    with np.errstate(invalid="ignore"):
        moved, off, apart = (np.nansum(np.abs(a - b)) for a, b in ((values, truth), (kept, truth), (kept, values)))
    return bool(moved == 0 or apart < off or off / 2 <= moved <= 2 * off)


# Kept from call to call: choosing without replacement shuffles the whole output, and one diagnosis (and every
# grading of a class, in one process) asks for the same outputs again.
@functools.lru_cache(maxsize=1 << 14)
def sample(stem: str, size: int, extra: int | None = None) -> np.ndarray:
    """The elements of an output of this size that evidence keeps: all of a small one, else SAMPLES chosen
    by a generator seeded with the stem (legacy RandomState: the same on every numpy), and extra. Read-only,
    since it is shared."""
    if size <= SAMPLES:
        index = np.arange(size)
    else:
        index = np.random.RandomState(zlib.crc32(stem.encode())).choice(size, SAMPLES, replace=False)
        index = np.unique(index if extra is None else np.append(index, extra))
    index.setflags(write=False)
    return index


def agree(actual: np.ndarray, values: np.ndarray, tolerance: Tolerance, exact: bool = False) -> bool:
    """Elementwise: equal for exact values (masks, tokens); within tolerance for floats, NaN with NaN and
    inf with inf."""
    actual = actual.astype(np.float64)
    if exact:
        return bool(np.array_equal(actual, values))
    with np.errstate(invalid="ignore"):
        near = np.abs(actual - values) <= tolerance.slack(values)
    same = (actual == values) | (np.isnan(actual) & np.isnan(values))
    return bool(np.all(near | same))


def dropped_out(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> bool:
    """actual is expected with some elements zeroed and all the others multiplied by one factor above 1,
    as dropout leaves it; at least one element shows it (zeroed where expected is not 0, or scaled)."""
    if actual.shape != expected.shape or actual.dtype.kind != "f":
        return False
    actual = actual.astype(np.float64)
    slack = tolerance.slack(expected)
    kept = np.abs(actual) > slack
    if not kept.any():
        return False
    ratio = np.median(actual[kept] / np.where(expected[kept] == 0, np.nan, expected[kept]))
    if not 1 < ratio < 10:
        return False
    scaled = np.abs(actual - ratio * expected) <= ratio * slack
    zeroed = np.abs(actual) <= slack
    shows = (zeroed & (np.abs(expected) > slack)).any() or ratio > 1 + 10 * tolerance.rtol
    return bool(np.all(scaled | zeroed) and shows)
