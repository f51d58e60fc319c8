"""Build the hidden suites' cases: seeded inputs, and expected values from real models.

Expected values come from the reference run in float64 ("reference" cases) or from Hugging Face BERT
run in float64 with seeded weights ("hf" cases). Every float input and weight is rounded to float32
first, so a float32 run and the float64 truth see exactly the same numbers.
"""

import torch

from autograder.engine.build import evidence
from autograder.engine.build.builder import Builder
from autograder.engine.build.cases import (
    attention,
    decoder,
    embeddings,
    encoder,
    feedforward,
    heads,
    layernorm,
    masking,
    multihead,
    seq2seq,
    steps,
)
from autograder.engine.child import runtime
from autograder.engine.contract import loader, spec
from autograder.engine.judge.fixtures import HERE

BUILDERS = (attention, masking, layernorm, multihead, feedforward, embeddings, encoder, decoder, heads, seq2seq)


def reference():
    """{SPEC name: the reference's object}, loaded from solutions/ as a child loads a submission."""
    return runtime.load_reference(loader.load(spec.SOLUTIONS).as_message(), spec.ALL_NAMES)


def reference_steps():
    """{step: the reference's helper}, each from its component's file (whose module is the component's id)."""
    message = loader.load(spec.SOLUTIONS).as_message()
    return runtime.load_reference({**message, "owners": steps.STEPS}, steps.STEPS)


def build(folder=HERE, components=None, public=False):
    """Write each component's cases, and every cataloged mistake's evidence on them, into folder: the hidden
    suites' cases, or (public) the public checks', which ship to students."""
    objects = reference()
    torch.use_deterministic_algorithms(True)
    for module in BUILDERS:
        component = module.__name__.rsplit(".", 1)[1]
        if components and component not in components:
            continue
        builder = Builder(component, objects, public)
        module.build(builder)
        builder.write(folder)
        evidence.hidden(folder, component)
    if public and not components:
        # The notebooks' steps: never graded, so public only, and no mistakes to name.
        builder = Builder("steps", reference_steps(), public)
        steps.build(builder)
        builder.write(folder)
