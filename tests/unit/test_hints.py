"""Every hint the hidden suites can show is said where the numbers support it, and nowhere else.

support/hint_evidence.py lists each with its two graded mistakes: every one is known, and each pair is of one
component. The graded mistakes are the mutation tests' (tests/system/test_mutations.py) and EXTRA
(tests/system/test_hints.py), each a grading run. The hints of the property tests (the values are right, then a
second call or other tokens change them) cannot be reached by a mistake that honest code makes, since their test
first needs the values right: they are checked here on the suites' own functions, with a stand-in for the student's
process that answers as such code would.
"""

import importlib

import numpy as np
import pytest
from support import mutations
from support.hint_evidence import BY_TEXT, CHECKPOINT_HINTS, EVIDENCE, EXTRA, HINTS, PROPERTY_HINTS, shown

import autograder.engine.judge.suites as suites
from autograder.engine.authoring import mistakes
from autograder.engine.judge import checks
from autograder.engine.judge.fixtures import of_kind
from autograder.engine.judge.suites import checking


def test_every_hint_has_its_evidence_and_its_counter_evidence():
    assert set(EVIDENCE) | PROPERTY_HINTS | CHECKPOINT_HINTS == set(HINTS)
    known = {m.id: m.component for m in mistakes.CATALOG}
    known |= {f"outside:{c}:{name}": c for c, name, _ in mutations.OUTSIDE}
    known |= {f"training:{c}:{name}": c for group in mutations.TRAINING_OUTSIDE for c, name, _ in group}
    known |= {key: component for key, (component, _) in EXTRA.items()}
    for name, (right, wrong) in EVIDENCE.items():
        assert right in known and wrong in known and right != wrong, name
        assert known[right] == known[wrong], f"{name}: its two cases are in different components"


def test_every_hint_has_a_text_of_its_own():
    """Feedback names a hint by its text: two hints with one text could not be told apart."""
    assert len(BY_TEXT) == len(HINTS)


# --- the property tests, on a stand-in for the student's process ------------------------------------------


class Answering:
    """What the suites talk to (handle.ChildHandle): it answers each call with the case's expected outputs, moved
    by `moved` where moved(args, kwargs) says the inputs are not the case's own (or always, where it says so)."""

    def __init__(self, case, moved):
        self.case, self.moved = case, moved
        self.built, self.observations = {}, []

    def new(self, target, *args, **kwargs):
        return {"$object": 0}

    def load(self, obj, params):
        pass

    def call(self, target, *args, dtype=None, return_inputs=False, **kwargs):
        values = [self.case.expected[name] + (0.5 if self.moved(args, kwargs) else 0.0) for name in self.case.outputs]
        result = [{"$tensor": v.astype(dtype or "float32"), "dtype": dtype or "float32"} for v in values]
        reply = {"result": result[0] if len(result) == 1 else result}
        if return_inputs:
            reply["inputs"] = list(args)
        return reply


def _differs(case, name):
    original_args, original_kwargs = case.call_args("float32")
    original = [*original_args, *original_kwargs.values()]

    def moved(args, kwargs):
        given = [*args, *kwargs.values()]
        return not all(np.array_equal(a, b) for a, b in zip(given, original) if isinstance(a, np.ndarray))

    return moved


def _second_call():
    calls = []

    def moved(args, kwargs):
        calls.append(1)
        return len(calls) > 1

    return moved


def _suite(name):
    return importlib.import_module(f"{suites.__name__}.{name}")


PROPERTY_TESTS = [
    ("encoder.padding", "test_encoder", "test_encoder_ignores_padding_tokens", "hf", _differs),
    ("decoder.causal", "test_decoder", "test_decoder_is_causal", "hf", _differs),
    ("seq2seq.causal", "test_seq2seq", "test_seq2seq_is_causal_in_the_target", "hf", _differs),
    (
        "any.deterministic",
        "test_encoder",
        "test_encoder_is_deterministic_in_eval_mode",
        "hf",
        lambda case, name: _second_call(),
    ),
]


@pytest.mark.parametrize("hint, module, test, kind, moving", PROPERTY_TESTS, ids=[p[0] for p in PROPERTY_TESTS])
def test_a_property_hint_is_said_only_where_the_values_are_right(hint, module, test, kind, moving):
    suite = _suite(module)
    case = of_kind(suite.COMPONENT, kind)[0]
    with pytest.raises(checks.StudentError) as failure:
        getattr(suite, test)(Answering(case, moving(case, None)), case)
    assert shown(str(failure.value)) == {hint}, str(failure.value)
    # Values wrong from the first call: the property cannot be judged, and its hint would guess.
    with pytest.raises(checks.StudentError) as failure:
        getattr(suite, test)(Answering(case, lambda args, kwargs: True), case)
    assert checking.PROPERTY in str(failure.value) and shown(str(failure.value)) == set(), str(failure.value)


def test_the_whole_stack_hint_is_said_where_the_stack_is_wrong_and_not_where_it_is_right():
    suite = _suite("test_integration")
    case = of_kind("heads", "hf-model")[0]
    with pytest.raises(checks.StudentError) as failure:
        suite.test_whole_stack_matches_hf(Answering(case, lambda args, kwargs: True), case)
    assert shown(str(failure.value)) == {"integration.output"}
    suite.test_whole_stack_matches_hf(Answering(case, lambda args, kwargs: False), case)


def test_the_hints_every_component_can_show_name_no_dropout_where_the_reference_has_none():
    """Every component's train-mode check may show "any.eval-first": it once told a layer norm, which has no
    dropout, that "where dropout goes can be told only once they are right"."""
    from autograder.engine.contract import spec
    from autograder.engine.judge.hints import HINTS as TABLE

    without = [
        c.id
        for c in spec.COMPONENTS
        if "dropout" not in (spec.KIT_ROOT / "solutions" / f"{c.id}.py").read_text().lower()
    ]
    assert "layernorm" in without
    for component in without:
        for topic, text in {**TABLE.get(component, {}), "eval-first": TABLE["any"]["eval-first"]}.items():
            assert "dropout" not in text.lower(), (component, topic)
