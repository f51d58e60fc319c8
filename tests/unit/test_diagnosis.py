"""The diagnosis's rules for more than one agreeing entry, and for float32 runs, on evidence written here: the
catalog's own evidence (tests/unit/test_mutations.py) never has two entries agree with one mistake's numbers, nor
an entry told apart in float32 alone, so these rules would go untested there.

Each made-up entry has evidence on one output of four elements (evidence keeps every element of an output that
small) and names real mistakes of the catalog, whose sentences the diagnosis says.
"""

import json

import numpy as np
import pytest

from autograder.engine.authoring import mistakes
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE, Evidence, Observation

COMPONENT = "layernorm"
A, B = "layernorm/unbiased-variance", "layernorm/eps-outside-the-square-root"
EXPECTED = np.array([0.5, -1.0, 2.0, 0.25])
RIGHT = {"kind": "right"}
V = np.array([0.6, -1.1, 2.2, 0.3])
W = np.array([0.4, -0.9, 1.8, 0.2])


def values(array, float32=True):
    return {"kind": "values", "values": array, "float32": float32}


def evidence(folder, entries):
    """Evidence of {entry id: (parts, {case: "right" or values(...)})} on cases whose output "y" is EXPECTED."""
    written, arrays = {}, {}
    for entry_id, (parts, cases) in entries.items():
        kept, found = [], {}
        for case, seen in cases.items():
            if seen["kind"] == "values":
                about = {"shape": [4], "kind": "f", "float32": seen["float32"], "extra": None, "offset": 4 * len(kept)}
                found[case] = {"kind": "values", "outputs": {"y": about}}
                kept.append(seen["values"])
            else:
                found[case] = seen
        written[entry_id] = {"component": COMPONENT, "parts": parts, "evidence": found}
        arrays[entry_id] = np.concatenate(kept) if kept else np.zeros(0)
    (folder / "made.json").write_text(json.dumps({"entries": written}))
    np.savez(folder / "made.npz", **arrays)
    return Evidence(folder / "made")


def observed(case, array, dtype="float64"):
    passed = bool(np.allclose(array, EXPECTED, rtol=0, atol=1e-12))
    return Observation(case, dtype, passed, {"y": np.asarray(array, dtype)}, {"y": EXPECTED})


def said(mistake_id):
    return LIKELY_MISTAKE + mistakes.BY_ID[mistake_id].says


def test_members_of_one_family_that_agree_are_one_diagnosis_its_sentence(tmp_path):
    made = evidence(
        tmp_path, {A: ([A], {"c1": values(V)}), f"{A}~other-site": ([A], {"c1": values(V), "c2": values(W)})}
    )
    assert made.diagnose(COMPONENT, [observed("c1", V), observed("c2", W)]) == said(A)


def test_a_single_mistake_is_named_over_a_pair_that_holds_it_and_agrees_too(tmp_path):
    """The pair raised on c2 (no evidence there), so it agrees with the single mistake's numbers as far as it goes."""
    made = evidence(tmp_path, {A: ([A], {"c1": values(V), "c2": values(W)}), f"{A}+{B}": ([A, B], {"c1": values(V)})})
    assert made.diagnose(COMPONENT, [observed("c1", V), observed("c2", W)]) == said(A)


def test_two_mistakes_that_agree_are_named_as_neither(tmp_path):
    made = evidence(tmp_path, {A: ([A], {"c1": values(V)}), B: ([B], {"c1": values(V), "c2": RIGHT})})
    assert made.diagnose(COMPONENT, [observed("c1", V), observed("c2", EXPECTED)]) is None
    assert made.diagnose(COMPONENT, [observed("c1", V), observed("c2", W)]) == said(A)


@pytest.mark.parametrize("float32", [True, False])
def test_a_float32_run_is_held_to_the_mistakes_values_only_where_they_are_kept_for_float32(tmp_path, float32):
    """Where the mistake's float32 run gave its float64 values to float32's precision, a float32 run that gives other
    values is other code; where it did not, the evidence says nothing of float32 runs."""
    made = evidence(tmp_path, {A: ([A], {"c1": values(V, float32=float32)})})
    runs = [observed("c1", V), observed("c1", W, "float32")]
    assert made.diagnose(COMPONENT, runs) == (None if float32 else said(A))
    assert made.diagnose(COMPONENT, [observed("c1", V), observed("c1", V, "float32")]) == said(A)
