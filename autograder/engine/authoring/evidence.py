"""Each cataloged mistake's evidence on the hidden cases: what it returns there, stored beside the fixtures.

Every mistake of the catalog (mistakes/), every other member of a mistake's family (its variants, each an entry
"ID~VARIANT" whose parts are the mistake's: diagnosis names the family by its one sentence), and every pair of
mistakes in one component whose edits apply together, is run as a student's code would be: the reference with
the edits made in the component's file, on each case, in float64 twice (a mistake that answers differently each
time is random, like dropout left on) and in float32. A mistake that is right on every case in eval mode (a
gradient cut, a dropout misplaced) is run in train mode too, once in each dtype (dropout's stand-in draws
nothing at random): its outputs and gradients there are its evidence, under diagnosis.trained(case id). A
gradient that never came is kept as why ("none" or "frozen"). diagnosis.py documents what is stored and how a
student's outputs are matched.

A mistake that is right wherever it does not raise leaves no evidence to name it by, and is left out (a
hard-coded head count raises on a config with another). Not paired: random mistakes, and those wrong only beyond
float32 precision (a pair with one says little more than its other half). A pair that returns what a single
mistake, a family's member or another pair returns is dropped: nothing could tell them apart. A member that
returns what its family already does is dropped too. Two mistakes that nothing tells apart (singles, or a member
and another mistake) stop the build, since the catalog would then name one for the other.
"""

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.engine.authoring import mistakes, mutants
from autograder.engine.authoring.mistakes.mistake import Mistake
from autograder.engine.contract.errors import StudentError
from autograder.engine.contract.messages import TENSOR
from autograder.engine.judge import diagnosis
from autograder.engine.judge.diagnosis import SAMPLES, SEPARATOR, agree, dropped_out, sample
from autograder.engine.judge.fixtures import read
from autograder.engine.judge.suites.checking import check_outputs
from autograder.engine.judge.tolerances import tolerance


class Outcome:
    """A mistake's runs on one case: two in float64 (or in the default dtype, for a case with no float
    input) and one in float32 where the case runs in float32; each {output: array}, a load message, or None
    where it raised; held to the tolerances of the component whose mistake it is."""

    def __init__(self, first, second, float32, expected, dtypes, component, passed=None):
        self.first, self.second, self.float32 = first, second, float32
        self.expected, self.dtypes, self.component = expected, dtypes, component
        self.passed = passed  # the check's own verdict, where it has one (a public check)

    @classmethod
    def of(cls, run, expected, dtypes, component, repeat=True):
        """Runs of run(dtype); repeat runs float64 twice, to tell a random mistake."""
        main = "float64" if "float64" in dtypes else dtypes[0]
        first = _tried(run, main)
        second = _tried(run, main) if repeat else first
        float32 = _tried(run, "float32") if "float32" in dtypes and main != "float32" else first
        return cls(first, second, float32, expected, dtypes, component)

    @property
    def random(self):
        return isinstance(self.first, dict) and isinstance(self.second, dict) and not _same(self.first, self.second)

    def right(self):
        if self.passed is not None:
            return self.passed
        return all(
            _passes(run, self.expected, dtype, self.component)
            for run, dtype in ((self.first, self.dtypes[-1]), (self.float32, self.dtypes[0]))
        )

    def right_in_float32(self):
        return "float32" in self.dtypes and _passes(self.float32, self.expected, "float32", self.component)

    def evidence(self):
        """{"kind": ...} as diagnosis.py reads it (values as {output: array}, stored apart), or None."""
        if self.first is None:
            return None
        if isinstance(self.first, str):
            return {"kind": "failure", "message": self.first}
        if self.random:
            dropped = [
                name
                for name in self.expected
                if name in self.first
                and name in self.second
                and all(
                    dropped_out(run[name], self.expected[name], tolerance("float64", self.component))
                    for run in (self.first, self.second)
                )
            ]
            return {"kind": "dropout", "outputs": dropped} if dropped else None
        if self.right():
            return {"kind": "right"}
        outputs = {}
        arrays = {name: array for name, array in self.first.items() if not isinstance(array, str)}
        for name, array in arrays.items():
            float32 = (
                isinstance(self.float32, dict)
                and isinstance(self.float32.get(name), np.ndarray)
                and self.float32[name].shape == array.shape
            )
            if float32 and array.dtype.kind == "f":
                float32 = agree(
                    self.float32[name].reshape(-1),
                    array.reshape(-1).astype(np.float64),
                    tolerance("float32", self.component),
                )
            outputs[name] = {"shape": list(array.shape), "kind": array.dtype.kind, "float32": bool(float32)}
        found = {"kind": "values", "outputs": outputs, "arrays": arrays}
        absent = {name: why for name, why in self.first.items() if isinstance(why, str)}
        return {**found, "absent": absent} if absent else found


def _tried(run, dtype):
    try:
        return run(dtype)
    except Exception:  # noqa: BLE001 - a mistake that raises on a case leaves no evidence there
        return None


def _same(a, b):
    return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)


def _equal(x, y):
    """Two arrays alike, or two reasons a gradient did not come alike."""
    if isinstance(x, str) or isinstance(y, str):
        return isinstance(x, str) and isinstance(y, str) and x == y
    return x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind == "f")


def _passes(run, expected, dtype, component):
    """run passes every output in this dtype, by the checks that grade a student's (suites/checking.py)."""
    if not isinstance(run, dict) or run.keys() != expected.keys() or any(isinstance(v, str) for v in run.values()):
        return False
    try:
        check_outputs(
            {name: {TENSOR: array, "dtype": str(array.dtype)} for name, array in run.items()},
            _Expected(list(expected), expected, component),
            dtype,
            {},
        )
    except StudentError:
        return False
    return True


@dataclass(frozen=True)
class _Expected:
    """The expected values _passes holds a mistake's outputs to, as check_outputs reads a case's
    (judge/seams.Expectation); no message is read, so none says which case."""

    outputs: list[str]
    expected: dict[str, np.ndarray]
    component: str  # whose tolerance the outputs are held to
    meta: dict[str, object] = field(default_factory=dict)

    def describe(self, dtype: str | None) -> str:
        return ""


def _farthest(array, expected, component):
    """The flat index of array's element farthest from expected (NaN the farthest), if they have one shape
    and some element differs by more than float32's tolerance. Where none does, the farthest is rounding's
    choice, and another CPU's would differ: a layer's gradients, right, beside those that a cut graph
    changes (float64 rounding), or a GELU computed in float32, whose every difference is float32 rounding
    and moves with the CPU's vector width (seen: two x86 machines picked different elements)."""
    if expected is None or expected.shape != array.shape or array.size <= SAMPLES:
        return None
    expected = expected.reshape(-1).astype(np.float64)
    distance = np.nan_to_num(np.abs(array.reshape(-1).astype(np.float64) - expected), nan=np.inf)
    if np.all(distance <= tolerance("float32", component).slack(expected)):
        return None
    # The first of the elements that tie for farthest, to float64's precision: another CPU's last bits
    # must not pick another one.
    return int(np.argmax(distance >= distance.max() * (1 - 1e-9)))


class Entries:
    """The evidence of one set of cases (one component's hidden cases, or the public checks), as files."""

    def __init__(self):
        self.entries, self.arrays = {}, {}

    def add(self, entry_id, component, parts, outcomes):
        evidence: dict[str, object] = {}
        values: list[np.ndarray] = []
        for key, outcome in outcomes.items():
            found = outcome.evidence()
            if found is None:
                continue
            for name, array in found.pop("arrays", {}).items():
                about = found["outputs"][name]
                about["extra"] = _farthest(array, outcome.expected.get(name), component)
                about["offset"] = sum(v.size for v in values)
                values.append(
                    array.reshape(-1)[sample(SEPARATOR.join((entry_id, key, name)), array.size, about["extra"])]
                )
            evidence[key] = found
        self.entries[entry_id] = {"component": component, "parts": list(parts), "evidence": evidence}
        self.arrays[entry_id] = np.concatenate(values).astype(np.float64) if values else np.zeros(0)

    def write(self, stem):
        # The entries name their mistakes by id, not by sentence: a sentence reworded rebuilds nothing here.
        document = {"entries": self.entries}
        Path(f"{stem}.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
        np.savez_compressed(f"{stem}.npz", **self.arrays)


def collect(component, outcomes_of, entries):
    """Run every mistake of component, the other members of each family, and every pair of mistakes, through
    outcomes_of(names) -> {key: Outcome}, and add what tells them apart to entries."""
    runs = {}
    for mistake in mistakes.of(component):
        outcomes = outcomes_of(mutants.names_with(component, mistake.edits))
        if _shows(outcomes):
            runs[(mistake,)] = outcomes
    for first, second in itertools.combinations(runs, 2):
        if _alike(runs[first], runs[second]):
            raise ValueError(
                f"{first[0].id} and {second[0].id} return the same on every case: nothing tells them apart"
            )
    members = _members(component, outcomes_of, runs)
    pairs = _pairs(component, outcomes_of, runs)
    alike = {pair for both in itertools.combinations(pairs, 2) if _alike(*(pairs[p] for p in both)) for pair in both}
    alike |= {pair for pair in pairs for single in runs if _alike(pairs[pair], runs[single])}
    alike |= {pair for pair in pairs for _, outcomes in members.values() if _alike(pairs[pair], outcomes)}
    for parts, outcomes in [*runs.items(), *((p, o) for p, o in pairs.items() if p not in alike)]:
        entry_id = "+".join(m.id for m in parts)
        entries.add(entry_id, component, [m.id for m in parts], outcomes)
    for entry_id, (mistake, outcomes) in members.items():
        entries.add(entry_id, component, [mistake.id], outcomes)


def _shows(outcomes):
    """Some case tells the mistake from the reference in eval mode, or in train mode."""
    return any(o.evidence() not in (None, {"kind": "right"}) for o in outcomes.values())


def _members(component, outcomes_of, runs):
    """{entry id: (mistake, outcomes)} of every member of a family but the one written first, each named by the
    family's sentence. A member that returns what its family already does adds nothing and is left out; one
    that returns what another mistake does stops the build, as two mistakes alike do."""
    found: dict[str, tuple[Mistake, dict]] = {}
    for mistake in mistakes.of(component):
        for entry_id, edits in mistake.members()[1:]:
            outcomes = outcomes_of(mutants.names_with(component, edits))
            if not _shows(outcomes):
                continue
            known = [(parts[0], o) for parts, o in runs.items()] + list(found.values())
            same = {other for other, theirs in known if _alike(outcomes, theirs)}
            if same - {mistake}:
                raise ValueError(
                    f"{entry_id} returns what {(same - {mistake}).pop().id} does: nothing tells them apart"
                )
            if not same:
                found[entry_id] = (mistake, outcomes)
    return found


def _pairs(component, outcomes_of, runs):
    """{(a, b): outcomes} of every two mistakes whose edits apply together, of those worth pairing."""
    pairable = [parts[0] for parts, outcomes in runs.items() if _pairable(outcomes)]
    pairs = {}
    for a, b in itertools.combinations(pairable, 2):
        try:
            names = mutants.names_with(component, a.edits + b.edits)
        except ValueError:  # the two edit the same text
            continue
        pairs[(a, b)] = outcomes_of(names)
    return pairs


def _pairable(outcomes):
    """Not random, and not wrong only beyond float32's precision: a case it is right on, or one that runs in float64
    alone (a beam search's), says nothing of that."""
    if any(o.random for o in outcomes.values()):
        return False
    float32 = [o for o in outcomes.values() if "float32" in o.dtypes and not o.right()]
    return not (float32 and all(o.right_in_float32() for o in float32))


def _alike(a, b):
    """Two mistakes' outcomes agree on every case, to float64's tolerance."""
    return a.keys() == b.keys() and all(_same_outputs(a[key].first, b[key].first, a[key].component) for key in a)


def _same_outputs(x, y, component):
    if not (isinstance(x, dict) and isinstance(y, dict)):
        return x == y  # two load messages, or two cases where both raised
    return x.keys() == y.keys() and all(_alike_values(x[n], y[n], component) for n in x)


def _alike_values(x, y, component):
    if isinstance(x, str) or isinstance(y, str):
        return _equal(x, y)
    return (
        x.shape == y.shape
        and x.dtype.kind == y.dtype.kind
        and agree(
            x.reshape(-1), y.reshape(-1).astype(np.float64), tolerance("float64", component), exact=x.dtype.kind != "f"
        )
    )


def hidden(folder, component):
    """Write folder/<component>.mistakes.*, from the cases in folder/<component>.*."""
    cases = read(folder, component)

    def outcomes_of(names):
        outcomes = {
            case.id: Outcome.of(
                lambda dtype, case=case: mutants.run_case(names, case, dtype), case.expected, case.dtypes, component
            )
            for case in cases
        }
        # A mistake wrong in eval mode is named from its eval-mode outputs; one right there shows only in training.
        if all(o.evidence() in (None, {"kind": "right"}) for o in outcomes.values()):
            outcomes.update(
                {
                    diagnosis.trained(case.id): Outcome.of(
                        lambda dtype, case=case: mutants.train_case(names, case, dtype),
                        case.trained,
                        case.dtypes,
                        component,
                        repeat=False,
                    )
                    for case in cases
                    if case.upstream
                }
            )
        return outcomes

    entries = Entries()
    collect(component, outcomes_of, entries)
    entries.write(folder / f"{component}.mistakes")
