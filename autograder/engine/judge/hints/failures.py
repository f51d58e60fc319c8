"""Every hint a student can read under a failing output ("Hint: ..."), by component and topic (a failing step's is
its entry's, in engine/authoring/steps/).

The hidden suites show them, the public checks (the same suites, on the public cases) show the same, and the kit's
tests hold each to its evidence (tests/support/hint_evidence.py: a graded mistake whose numbers support it, and one whose
numbers do not). A hint says what is graded, as the contract says it; what the student likely did wrong is the
diagnosis's "Likely mistake" line (generated/mistake_sentences.json, from the catalog).

Two kinds. Any component's (ANY, here) read the check's own numbers back to the student: the values agree to
float32 only, they change between calls, the eval-mode ones are wrong too; they are how a failure is read, so they
are shown under every setting. A component's topics say what its contract asks, and so how it is done: they are
written in engine/authoring/failure_hints.py, which never ships, and `python -m autograder generate --part
sentences` copies them to generated/failure_hints.json under the course's hints setting, none copying none.
"""

import functools
import json
from collections.abc import Iterator, Mapping

from autograder.engine.contract.spec import GENERATED

HINT = "Hint: "  # the line a hint begins, under the failure it explains
FAILURE_HINTS = GENERATED / "failure_hints.json"

ANY = {
    # The numbers say only that the values are near: both causes that make them so are named, neither asserted.
    "float32-only": (
        "the values agree with the expected ones to float32 precision, but not to float64's: something in your "
        "code is slightly off. Usual causes: a computation in float32 when the inputs are float64 (a constant or "
        "buffer made in float32, torch.tensor(x) or torch.ones(...) without dtype=, a registered 1/sqrt(Dh) "
        "scale, a .float() call, a number rounded to float32 precision), or a small constant other than the "
        "config's (a layer norm's eps: nn.LayerNorm's default is 1e-5, where config.layer_norm_eps is 1e-12). "
        "Make new tensors with dtype=input.dtype, use Python floats (math.sqrt), and read every constant from "
        "the config."
    ),
    # Under a train-mode check whose values are wrong in eval mode too: what train mode changes cannot be told
    # from outputs that are wrong without it. Every component's train-mode check says it, layer norm's too,
    # which has no dropout: so it names none (it once told a layer norm where dropout goes).
    "eval-first": (
        "the values are wrong in eval mode too: fix those first; the train-mode values can be judged only once "
        "the eval-mode ones are right."
    ),
    # The case on a config unlike the others (engine/authoring/builder.py, ODD_CONFIG) differs in its sizes, its
    # eps and its three token types: what fails only there is one of those, and the hint names each.
    "config": (
        "this config differs from the others in its sizes, its eps (0.05) and its token types (three): read "
        "every size from the config you are given, none hard-coded (num_attention_heads and Dh = hidden_size // "
        "num_attention_heads, intermediate_size, max_position_embeddings, type_vocab_size, num_hidden_layers, "
        "num_labels), pass eps=config.layer_norm_eps to every LayerNorm, and pass token_type_ids on wherever "
        "they are given."
    ),
    # Where the values are right and a gradient is not.
    "gradient": (
        "the outputs are right but this gradient is not: part of the computation is cut from the graph "
        "(.detach(), .data, torch.no_grad(), a value rebuilt from .item() or .tolist()), or a custom autograd "
        "Function computes its own backward wrongly."
    ),
    # Where the values are wrong and a second call on the same input gives other ones: what the values are
    # cannot be judged while they change, and a hint on the formula would name a cause they do not show.
    "changing": (
        "two calls on the same input in eval() mode gave different values: something changes between calls, "
        "such as dropout that does not follow eval() (F.dropout(x, p) without training=self.training), "
        "torch.rand, or state that a call updates. The values can be judged once they repeat."
    ),
    # Only where the first call's values are right: so it is not dropout left on in eval mode (that makes them
    # wrong), but something that changes between calls.
    "deterministic": (
        "the first call gave the right values and the second call other ones: in eval() mode nothing may "
        "change between calls. Look for state that a call changes (a counter, a cached tensor, a weight or "
        "buffer updated in place) or randomness that does not follow eval() (F.dropout with training=True, "
        "torch.rand)."
    ),
}


class Topics(dict[str, str]):
    """A component's hints by topic; a topic the course ships no hint for reads as "" (no "Hint:" line)."""

    def __missing__(self, topic: str) -> str:
        return ""


class Table(Mapping[str, Topics]):
    """The hints by component, read from the generated table when first asked (what imports this module to name
    the file, the grading image's first stage, has no table to read); a component with none shipped has no topics."""

    def __getitem__(self, component: str) -> Topics:
        return _shipped().get(component, Topics())

    def __iter__(self) -> Iterator[str]:
        return iter(_shipped())

    def __len__(self) -> int:
        return len(_shipped())


@functools.cache
def _shipped() -> dict[str, Topics]:
    shipped: dict[str, dict[str, str]] = json.loads(FAILURE_HINTS.read_text())
    return {"any": Topics(ANY), **{component: Topics(topics) for component, topics in shipped.items()}}


HINTS = Table()
