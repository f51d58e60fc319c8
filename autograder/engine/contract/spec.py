"""The components of the contract (docs/CONTRACT.md): ids, the names each owns, points, and what each may not delegate.

Everything that needs to know the components reads them from here.
"""

import ast
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.engine.contract.reasons import DELEGATION

KIT_ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = KIT_ROOT / "solutions"
ASSIGNMENTS = KIT_ROOT / "assignments"
# What `python -m autograder generate` writes and the kit reads as data: cases, evidence, sentences, stamps
# (generated/README.md). Beside the package, which holds code alone.
GENERATED = KIT_ROOT / "generated"
# The hidden suites, test_<id>.py for each component (the judge's; here for the extensions, graded once theirs exist).
SUITES = KIT_ROOT / "autograder" / "engine" / "judge" / "suites"

# What a component may not delegate to, by kind: substrings of torch's names for it, lower case without
# underscores, matched against the function a call reaches (the child's tripwire) and against what a name in
# the source resolves to (scrutiny.py), module path included (torch.nn.attention.*, torch.nn.modules.transformer).
KERNELS = {
    "attention": ("attention", "transformer"),  # sdpa, flex, MultiheadAttention, the fused Transformer* layers
    "normalisation": ("layernorm", "groupnorm", "instancenorm", "batchnorm", "rmsnorm", "transformer"),
    "clipping": ("clipgradnorm",),  # torch.nn.utils.clip_grad_norm_, which the policy lends part 10's loop
}
# The kinds whose kernels are Python functions of torch's that call its computing functions (clip_grad_norm_ calls
# its norms): the tripwire, which sees only the calls of torch functions, looks for them among torch's frames under
# each call.
IN_PYTHON = frozenset({"clipping"})
# Any part of a transformers model or its helpers, anywhere (configurations are plain data, and allowed).
TRANSFORMERS = "transformers"


@dataclass(frozen=True)
class Component:
    id: str
    names: tuple[str, ...]
    points: int
    kinds: tuple[str, ...] = ()  # keys of KERNELS: what its code may not delegate its subject to
    # A course extension (CONTRACT.md, "Course extensions"): graded where a submission defines one of its names,
    # its points reported apart from the core's.
    extension: bool = False

    @property
    def kernels(self) -> tuple[str, ...]:
        """Every kind of library code this component may not delegate to: its own kinds, and transformers."""
        return (*self.kinds, TRANSFORMERS)

    @property
    def forbidden_reason(self) -> str:
        """What its code reads when it ran a kernel of its kinds, {call} the kernels (reasons.DELEGATION)."""
        return DELEGATION[self.id]["kernel"] if self.kinds else ""

    @property
    def forbidden(self) -> tuple[str, ...]:
        """The substrings of torch's function names that its tripwire watches for."""
        return tuple(pattern for kind in self.kinds for pattern in KERNELS[kind])

    @property
    def forbidden_in_python(self) -> tuple[str, ...]:
        """The substrings of the names of torch's Python functions that its tripwire looks for on the stack."""
        return tuple(pattern for kind in self.kinds if kind in IN_PYTHON for pattern in KERNELS[kind])

    @property
    def reference(self) -> Path:
        return SOLUTIONS / f"{self.id}.py"

    @property
    def stub(self) -> Path:
        return ASSIGNMENTS / f"{self.id}.py"


COMPONENTS = (
    Component(
        "attention",
        ("scaled_dot_product_attention",),
        10,
        ("attention",),
    ),
    Component("masking", ("causal_mask", "padding_mask"), 5),
    Component(
        "layernorm",
        ("LayerNorm",),
        5,
        ("normalisation",),
    ),
    Component(
        "multihead",
        ("MultiHeadAttention",),
        15,
        ("attention",),
    ),
    Component("feedforward", ("FeedForward",), 5),
    Component("embeddings", ("Embeddings", "sinusoidal_positional_encoding"), 10),
    Component("encoder", ("TransformerEncoderLayer", "TransformerEncoder"), 15),
    Component("decoder", ("TransformerDecoderLayer", "TransformerDecoder"), 15),
    Component(
        "heads",
        ("LanguageModelHead", "SequenceClassificationHead", "TransformerForSequenceClassification"),
        10,
    ),
    Component("seq2seq", ("Seq2SeqTransformer", "greedy_decode"), 10),
)
# Parts 9 and 10. They build on the core and never on each other, so a child grading one holds the core's
# references alone (references_for).
EXTENSIONS = (
    Component(
        "training",
        ("shift_right", "sequence_loss", "learning_rate", "clip_gradient_norm", "training_step"),
        10,
        ("clipping",),
        extension=True,
    ),
    Component(
        "generation",
        ("sampling_probabilities", "sample_next", "attend_with_cache", "beam_search"),
        10,
        extension=True,
    ),
)
ALL_COMPONENTS = COMPONENTS + EXTENSIONS
BY_ID = {component.id: component for component in ALL_COMPONENTS}
OWNER = {name: component for component in ALL_COMPONENTS for name in component.names}
ALL_NAMES = tuple(OWNER)
TOTAL_POINTS = sum(component.points for component in COMPONENTS)  # the core's: a course of parts 1 to 8 is out of it

# Checks that run the student's whole stack at once; reported, never scored.
INTEGRATION = "integration"


def graded_by_default(defined: Collection[str]) -> list[str]:
    """The ids a grading runs unless told which: the core, each extension of which the submission defines a name
    (defined: the SPEC names it defines) once its hidden suite exists, and the integration check.

    The extensions' references and stubs come before their suites (issue 48 builds them in steps): until a suite
    is there, a submission that defines the extension's names grades as a core one."""
    wanted = [c.id for c in EXTENSIONS if set(c.names) & set(defined) and has_suite(c)]
    return [c.id for c in COMPONENTS] + wanted + [INTEGRATION]


def has_suite(component: Component) -> bool:
    """Whether the component's hidden suite is there to grade it (every core one's is)."""
    return (SUITES / f"test_{component.id}.py").exists()


@cache
def dependencies(component_id: str) -> frozenset[str]:
    """Ids of the components whose names the reference of component_id uses, transitively.

    Read from the reference's own imports, so the graph cannot drift from the code.
    """
    tree = ast.parse(BY_ID[component_id].reference.read_text())
    direct = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module in BY_ID}
    return frozenset(direct.union(*(dependencies(d) for d in direct)))


def references_for(component_id: str) -> tuple[Component, ...]:
    """Components whose reference a child grading component_id may hold: everything that does not
    contain component_id's reference, so that the child never holds it.

    For the integration check there is no reference at all: the whole stack is the student's.
    """
    if component_id == INTEGRATION:
        return ()
    return tuple(c for c in COMPONENTS if c.id != component_id and component_id not in dependencies(c.id))
