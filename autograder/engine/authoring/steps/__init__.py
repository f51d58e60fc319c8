"""The notebooks' steps, each one entry whole: a helper towards an exercise, with its public check, never graded.

One module per component that has steps holds its STEPS, in the order its notebook asks them: each step's helper
(a top-level function of the component's reference that is no SPEC name), its title and what the notebook says
of it, the hint under its failing check, its public cases, and a wrong version as students write it; step.py
says what an entry is. Read by the notebook builder (a ```steps COMPONENT block of a part becomes the
component's steps, numbered in order: course/notebooks.py), the public cases' builder (build()), the sentences'
table (hints(), which ships as generated/step_hints.json: `python -m autograder generate --part sentences`), and
the kit's tests. A new step is its helper in the reference and its entry here.
"""

import importlib
import importlib.util
import json

from autograder.engine.authoring.steps.step import Cases, Step
from autograder.engine.contract import spec

__all__ = ["BY_NAME", "STEPS", "Step", "build", "hints", "of"]

STEPS = [
    step
    for component in spec.COMPONENTS
    if importlib.util.find_spec(f"{__name__}.{component.id}")
    for step in importlib.import_module(f"{__name__}.{component.id}").STEPS
]
BY_NAME = {step.name: step for step in STEPS}


def of(component):
    return [step for step in STEPS if step.component == component]


def build(builder):
    """Add every step's public cases to the Builder."""
    for step in STEPS:
        step.cases(Cases(builder, step))


def hints():
    """The text of generated/step_hints.json: {step: the hint under its failing check}, by component in the spec's order."""
    return json.dumps({step.name: step.hint for step in STEPS}, indent=1, ensure_ascii=False) + "\n"


def _check():
    names = [step.name for step in STEPS]
    if len(names) != len(set(names)):
        raise ValueError("two steps share a name")
    spec_names = sorted(set(names) & set(spec.OWNER))
    if spec_names:
        raise ValueError(f"steps that are SPEC names: {spec_names}")


_check()
