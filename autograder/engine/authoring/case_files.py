"""Build the hidden suites' cases: seeded inputs, and expected values from real models.

Expected values come from the reference run in float64 ("reference" cases) or from Hugging Face BERT
run in float64 with seeded weights ("hf" cases). Every float input and weight is rounded to float32
first, so a float32 run and the float64 truth see exactly the same numbers.
"""

import importlib

import torch

from autograder.engine.authoring import evidence, steps
from autograder.engine.authoring.builder import Builder
from autograder.engine.child import runtime
from autograder.engine.contract import loader, spec


def reference():
    """{SPEC name: the reference's object}, loaded from solutions/ as a child loads a submission."""
    return runtime.load_reference(loader.load(spec.SOLUTIONS).as_message(), spec.ALL_NAMES)


def reference_steps():
    """{step: the reference's helper}, each from its component's file (whose module is the component's id)."""
    message = loader.load(spec.SOLUTIONS).as_message()
    owners = {step.name: step.component for step in steps.STEPS}
    return runtime.load_reference({**message, "owners": owners}, list(owners))


def build(folder, component, public=False):
    """Write one component's cases, and every cataloged mistake's evidence on them, into folder: the hidden
    suites' cases, or (public) the public checks', which ship to students."""
    torch.use_deterministic_algorithms(True)
    builder = Builder(component, reference(), public)
    importlib.import_module(f"autograder.engine.authoring.cases.{component}").build(builder)
    builder.write(folder)
    evidence.hidden(folder, component)


def build_steps(folder):
    """Write the public cases of the notebooks' steps: never graded, so public only, and no mistakes to name."""
    torch.use_deterministic_algorithms(True)
    builder = Builder("steps", reference_steps(), public=True)
    steps.build(builder)
    builder.write(folder)
