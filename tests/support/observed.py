"""What a cataloged mistake's code shows the diagnosis, rebuilt from its stored evidence, without running it.

A grading records an observation per case and dtype (suites/checking.observe): the outputs and whether they passed,
or the grader's message. Evidence (engine/judge/diagnosis.py) keeps of each case what the mistake's code gave there:
"right", a load "failure", "dropout", or "values" at sampled elements (every element of a small output) and the
farthest one. So an observation is rebuilt as the expected outputs with the kept elements set to the mistake's
values (an output of another shape or kind than the expected one is unknown elsewhere: NaN, or -1 for tokens,
which nothing returns), and passed is what the suites' own comparison says of that. A case without evidence is one
where the mistake raised: a failure that no evidence holds.

The values come as another CPU computes them: where a mistake computes in float32 (its float64 run is the expected
one to float32's precision and not to float64's), the digits beyond float32's are rounding, and another machine's
differ from the evidence's: each is moved by a quarter of its distance from the expected value, since the same
float32 computation on another CPU rounds as the mistake did far more often than not. Code that is right but rounds
to float32 somewhere of its own (rounded_truth) differs from the expected values by float32's rounding alone, at a
part in ten million, and from such a mistake's as much: no entry may be named on that (diagnosis._nearer).
"""

import numpy as np

from autograder.engine.contract.errors import StudentError
from autograder.engine.contract.messages import TENSOR
from autograder.engine.judge.diagnosis import SEPARATOR, Observation, sample, trained
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.suites.checking import check_outputs

RAISED = "RuntimeError: the mistake's code raised here"
RIGHT, WRONG, FLOAT32_ONLY = "right", "wrong", "right to float32's precision only"
ROUNDING = 1e-7  # float32's rounding, relative: far beyond float64's tolerance, far within float32's


def observations(case_set, component, entry_id, moved=()):
    """The observations a grading of entry_id's code on case_set would record, by its evidence. In the runs of the
    dtypes in moved (None for a case with no float input), the code is another: one kept element of each output
    has another value, and a load failure another message."""
    evidence = case_set.evidence(component)
    found = evidence.entries[entry_id]["evidence"]
    keys = [(case, case.id, case.expected) for case in case_set.cases(component)]
    if any(SEPARATOR in key for key in found):  # right in eval mode: its train-mode runs are what it is named by
        keys += [(case, trained(case.id), case.trained) for case in case_set.cases(component) if case.upstream]
    return [
        _observed(evidence.arrays[entry_id], entry_id, key, dtype, expected, found.get(key), dtype in moved, component)
        for case, key, expected in keys
        for dtype in case.dtypes
    ]


def _observed(arrays, entry_id, key, dtype, expected, found, moved, component):
    if found is None:
        return Observation(key, dtype, False, failure=RAISED, expected=expected)
    if found["kind"] == "failure":
        return Observation(key, dtype, False, failure=found["message"] + " (elsewhere)" * moved, expected=expected)
    if found["kind"] == "right":
        return Observation(key, dtype, True, {n: _cast(a, a.dtype.kind, dtype) for n, a in expected.items()}, expected)
    if found["kind"] == "dropout":
        dropped = {n: _dropped(a, moved) if n in found["outputs"] else a for n, a in expected.items()}
        return Observation(key, dtype, False, {n: _cast(a, a.dtype.kind, dtype) for n, a in dropped.items()}, expected)
    outputs, passed = {}, expected.keys() == found["outputs"].keys()
    for name, about in found["outputs"].items():
        truth = expected.get(name)
        same = truth is not None and list(truth.shape) == about["shape"] and truth.dtype.kind == about["kind"]
        unknown = np.nan if about["kind"] == "f" else -1
        full = truth.astype(np.float64).reshape(-1) if same else np.full(int(np.prod(about["shape"])), unknown)
        index = sample(SEPARATOR.join((entry_id, key, name)), full.size, about["extra"])
        kept = arrays[about["offset"] : about["offset"] + index.size]
        full[index] = _moved(kept, about["kind"]) if moved else kept
        output = _cast(full.reshape(about["shape"]), about["kind"], dtype)
        # Whether it passes, asked while the others did; in float64, always: whether it is right to float32's
        # precision only, the mark of code computing in float32, whose digits beyond float32's another CPU moves.
        verdict = _verdict(name, output, truth, dtype, component) if same and (passed or dtype == "float64") else WRONG
        if verdict == FLOAT32_ONLY:
            output = _rounded_elsewhere(output, truth)
        outputs[name], passed = output, passed and verdict == RIGHT
    return Observation(key, dtype, passed, outputs, expected, absent=found.get("absent", {}))


def _cast(array, kind, dtype):
    if kind == "f":
        return np.asarray(array, dtype=dtype or np.float64)
    return np.asarray(array).astype({"b": np.bool_, "i": np.int64, "u": np.uint8}[kind])


def _dropped(array, moved):
    """The expected values as dropout leaves them: every other element zeroed, the rest scaled by 1 / (1 - p); moved,
    every element zeroed, which no dropout leaves."""
    flat = array.astype(np.float64).reshape(-1) / 0.9
    flat[:: 1 if moved else 2] = 0
    return flat.reshape(array.shape)


def _moved(kept, kind):
    """kept with its first element changed beyond any tolerance: a float moved by a hundredth (NaN and inf become 0),
    a token or count by one, a boolean flipped. One element is enough to tell code from the mistake's evidence."""
    first = kept[0]
    kept = kept.copy()
    if kind == "b":
        kept[0] = 1 - first
    elif kind != "f":
        kept[0] = first + 1
    else:
        kept[0] = first + 0.01 * (1 + abs(first)) if np.isfinite(first) else 0.0
    return kept


def _signs(shape):
    return np.where(np.arange(int(np.prod(shape))) % 2, 1.0, -1.0).reshape(shape)


def _rounded_elsewhere(output, truth):
    return output + _signs(output.shape) * np.abs(output - truth) / 4


def rounded_truth(case_set, component):
    """The observations of code that is right but rounds to float32 somewhere of its own (a softmax run in float32,
    a scale rounded apart from the catalog's): every float64 output is the expected one moved by a part in ten
    million, which fails float64's tolerance and meets float32's; every other run is right."""
    observed = []
    for case in case_set.cases(component):
        for dtype in case.dtypes:
            rounds = dtype == "float64"
            outputs = {
                name: _cast(
                    value + _signs(value.shape) * ROUNDING * (1 + np.abs(value)) * rounds, value.dtype.kind, dtype
                )
                if value.dtype.kind == "f"
                else _cast(value, value.dtype.kind, dtype)
                for name, value in case.expected.items()
            }
            moved = rounds and any(value.dtype.kind == "f" for value in case.expected.values())
            observed.append(Observation(case.id, dtype, not moved, outputs, case.expected))
    return observed


class _Case:
    """One expected output as check_outputs reads a case's (judge/seams.Expectation)."""

    def __init__(self, name, expected, component):
        self.outputs, self.expected = [name], {name: expected}
        self.component, self.meta = component, {}  # whose tolerance the output is held to

    def describe(self, dtype):
        return ""


def _verdict(name, output, expected, dtype, component):
    """RIGHT, WRONG or FLOAT32_ONLY for one output, by the comparison that grades a student's
    (suites/checking.check_outputs), whose float32-only hint marks the last."""
    try:
        check_outputs({name: {TENSOR: output, "dtype": str(output.dtype)}}, _Case(name, expected, component), dtype, {})
    except StudentError as wrong:
        return FLOAT32_ONLY if HINTS["any"]["float32-only"] in str(wrong) else WRONG
    return RIGHT
