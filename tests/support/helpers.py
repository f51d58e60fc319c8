"""Building test submissions from the reference, and grading them (in the jail, or the hidden suites in this
process), for the kit's own tests.

An edit of the reference quotes as little of it as it can, so that it holds where the reference's text moves: a
cataloged mistake's edits (catalog(), which the catalog checks apply once), code put first in a definition's
solution region (First: it quotes nothing), or a text edit held to the code graded (replace_in: the SPEC
definitions and the imports, so that a helper or a step with the same line cannot take it).
"""

import ast
import shutil
import textwrap
from dataclasses import dataclass

from autograder.course.local import LocalGrading
from autograder.engine.authoring import mistakes, mutants
from autograder.engine.contract import spec
from autograder.engine.judge import fixtures
from autograder.engine.judge.grade import grade
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.results import ComponentResult
from autograder.engine.judge.run import run_suites


@dataclass(frozen=True)
class First:
    """code put first in the solution region of the top-level definition name (a SPEC name, or a step of the
    notebooks), the region's own code left after it: after a return, never reached."""

    name: str
    code: str


def catalog(mistake_id):
    """A cataloged mistake's edits, as submission takes them."""
    mistake = mistakes.BY_ID[mistake_id]
    return [(mistake.component, old, new) for old, new in mistake.edits]


def submission(folder, edits=(), files=None, drop=()):
    """A copy of the reference in folder, with edits applied: the core's files, and an extension's where an edit
    is made in it (a submission that defines an extension's names is graded in it too).

    Args:
        edits: (component id, old text, new text) triples, each old text once in the component's graded code
            and imports (replace_in), or First edits of the definition they name.
        files: {file name: content} to add or replace.
        drop: component ids whose file is left out.
    """
    folder.mkdir(parents=True, exist_ok=True)
    edits = list(edits)
    edited = {owner(edit.name).id if isinstance(edit, First) else edit[0] for edit in edits}
    for component in spec.ALL_COMPONENTS:
        if component.id not in drop and (not component.extension or component.id in edited):
            shutil.copy(component.reference, folder / component.reference.name)
    for edit in edits:
        if isinstance(edit, First):
            path = folder / owner(edit.name).reference.name
            path.write_text(first_in_solution(path.read_text(), edit.name, edit.code))
            continue
        component_id, old, new = edit
        path = folder / f"{component_id}.py"
        if not path.exists():  # a course extension's file, which the core's copy leaves out
            shutil.copy(spec.BY_ID[component_id].reference, path)
        path.write_text(replace_in(path.read_text(), old, new, spec.BY_ID[component_id].names, path.name))
    for name, content in (files or {}).items():
        (folder / name).write_text(content)
    return folder


# Correct submissions, each written independently of the reference in a style students really use (graded in
# tests/system/test_variants.py, checked publicly in tests/system/test_public.py).
SUBMISSIONS = spec.KIT_ROOT / "tests" / "submissions"
# The notes real public code's boilerplate gets, and nothing else (the contract's "held where it is used"): each
# note begins so. Every other honest submission of tests/submissions gets none.
BOILERPLATE_NOTES = {
    "hf_bert_style.py": [
        "hf_bert_style.py: 1 statement not run, since nothing graded needs it: line 12 imports os",
        "hf_bert_style.py, line 18: torch.utils.checkpoint was not imported",
    ],
    "timm_style.py": ["timm_style.py: 1 statement not run, since nothing graded needs it: line 16 imports torch.jit"],
    "uvadlc_style.py": ["uvadlc_style.py: 13 statements not run, since nothing graded needs them: line 9 imports os"],
}


def noted_as_expected(notes, name):
    """Whether notes are the ones BOILERPLATE_NOTES gives the submission of that file name, in order."""
    expected = BOILERPLATE_NOTES.get(name, [])
    return len(notes) == len(expected) and all(note.startswith(start) for note, start in zip(notes, expected))


STYLES = [
    "loop_style",  # a loop over heads, additive masks, hand-written softmax and GELU
    "einsum_style.ipynb",  # einsum, finfo.min masks, magics, %%time, nbgrader test cells, demo cells
    "typed_future.py",  # future annotations, forward references, a dataclass config defined last, NamedTuples
    "package_style",  # several files importing each other by module name; HF's transpose_for_scores; bmm
    "annotated_style.py",  # The Annotated Transformer: attention(dropout=...), -1e9 fill, deepcopy clones
    "functional_style.py",  # torch.where, rsqrt, nn.Sequential feed-forward, -1e4 additive masks
    "oop_chunks.py",  # a base class of its own, a decorator on forward, heads by chunk, frozen dataclass config
    "run_magic",  # two notebooks of its own, the second starting with %run of the first
    "nanogpt_style.py",  # one fused QKV projection from the SPEC's weights, split; an additive -inf mask
]

# The generated parts whose release `nbgrader generate_assignment` makes (autograder/generated.py): comparing them
# runs nbgrader, in tests/system/test_generated.py; the others are compared in tests/unit/test_generated.py.
RELEASED_PARTS = ("course", "breakout")


def owner(name):
    """The component whose reference file defines name: a SPEC name's, or a step's."""
    if name in spec.OWNER:
        return spec.OWNER[name]
    from autograder.course import notebooks

    return spec.BY_ID[notebooks.step_reference(name).stem]


def replace_in(source, old, new, names, where="the source"):
    """source with old replaced by new, where old occurs exactly once in the top-level definitions of names and the
    top-level statements that define nothing (the imports): the code an edit of the graded names means, whatever
    else the file defines with the same text."""
    tree = ast.parse(source)
    starts = _line_starts(source)
    spans = [
        (starts[_first_line(node) - 1], starts[node.end_lineno])
        for node in tree.body
        if getattr(node, "name", None) in names or not isinstance(node, ast.FunctionDef | ast.ClassDef)
    ]
    found = [i for i in _occurrences(source, old) if any(start <= i < end for start, end in spans)]
    assert len(found) == 1, f"{old!r} occurs {len(found)} times in {where}'s {', '.join(names)} and imports"
    return source[: found[0]] + new + source[found[0] + len(old) :]


def first_in_solution(source, name, code):
    """source with code put first in the solution region of its top-level definition name (the first region, for
    a class: the one of the method the notebook asks for)."""
    (node,) = [node for node in ast.parse(source).body if getattr(node, "name", None) == name]
    lines = source.splitlines(keepends=True)
    regions = [n for n in range(_first_line(node), node.end_lineno + 1) if lines[n - 1].strip() == "### BEGIN SOLUTION"]
    assert regions, f"{name} has no solution region"
    begin = regions[0]
    marker = lines[begin - 1]
    indent = marker[: len(marker) - len(marker.lstrip())]
    return (
        "".join(lines[:begin])
        + textwrap.indent(textwrap.dedent(code).strip("\n") + "\n", indent)
        + "".join(lines[begin:])
    )


def _first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _line_starts(source):
    """The offset of each line's first character, and of the end."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _occurrences(text, old):
    found, at = [], text.find(old)
    while at != -1:
        found.append(at)
        at = text.find(old, at + 1)
    return found


TIME_LIMIT = 20.0  # seconds per component: the kit's tests grade small submissions


def line_of(component_id, text):
    """The line number of text in a component's reference, as a message about a submission built from it names it."""
    lines = spec.BY_ID[component_id].reference.read_text().splitlines()
    (number,) = [i for i, line in enumerate(lines, start=1) if text in line]
    return number


def scores(path, time_limit=TIME_LIMIT, **kwargs):
    """{component id: ComponentResult} for a graded submission (in the given sandbox, if one is)."""
    report = grade(path, limits=Limits(time=time_limit), **kwargs)
    return {c.id: c for c in report.components}, report


def full_marks_except(results, *component_ids):
    """Component ids other than those given that did not get full marks."""
    return [
        f"{c.id}: {c.score}/{c.points}\n{c.feedback()}"
        for c in results.values()
        if c.id not in component_ids and c.id != spec.INTEGRATION and c.score != c.points
    ]


def tiny_checkpoint(folder, sentences):
    """A small BERT checkpoint with seeded weights and a WordPiece tokenizer covering the sentences' words."""
    from transformers import BertModel, BertTokenizerFast

    from autograder.engine.judge import hf

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = sorted({w.strip(".,").lower() for s in sentences for w in s.split()} | {".", ","})
    (folder / "vocab.txt").write_text("\n".join(special + words) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    config = hf.bert_config(vocab_size=len(special) + len(words), max_position_embeddings=32)
    hf.randomize(BertModel(config), seed=7).save_pretrained(folder)
    return folder


LAZY_COMPONENTS = ("multihead", "feedforward", "heads")

# d2l's multi-head attention (Dive into Deep Learning, 11.5), shimmed to the SPEC's names: lazy projections,
# heads folded into the batch as (B·H, T, Dh) by its transpose_qkv, bmm, and the weights unfolded to
# (B, H, T, S) only on the way out. Its layout once drew a hint that a .view mixes positions into heads.
D2L_MULTIHEAD = """
import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.query = nn.LazyLinear(config.hidden_size)
        self.key = nn.LazyLinear(config.hidden_size)
        self.value = nn.LazyLinear(config.hidden_size)
        self.output = nn.LazyLinear(config.hidden_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_qkv(self, X):
        X = X.reshape(X.shape[0], X.shape[1], self.num_heads, -1).permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(self, X):
        X = X.reshape(-1, self.num_heads, X.shape[1], X.shape[2]).permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    def forward(self, hidden_states, mask=None, key_value_states=None):
        source = hidden_states if key_value_states is None else key_value_states
        queries = self.transpose_qkv(self.query(hidden_states))
        keys = self.transpose_qkv(self.key(source))
        values = self.transpose_qkv(self.value(source))
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(queries.shape[-1])
        if mask is not None:
            B, T, S = hidden_states.shape[0], queries.shape[1], keys.shape[1]
            allowed = mask.expand(B, self.num_heads, T, S).reshape(-1, T, S)
            scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.bmm(self.dropout(weights), values)
        return self.output(self.transpose_output(context)), weights.reshape(-1, self.num_heads, *weights.shape[1:])
"""


def lazy_submission(folder):
    """The reference with d2l's multi-head attention and every linear layer of feed-forward and heads an
    nn.LazyLinear, as d2l builds them: no input size until the first call (or until weights are loaded)."""
    lazy = [
        (c, f"nn.Linear({size}, {out})", f"nn.LazyLinear({out})")
        for c, size, out in [
            ("feedforward", "config.hidden_size", "config.intermediate_size"),
            ("feedforward", "config.intermediate_size", "config.hidden_size"),
            ("heads", "config.hidden_size", "config.vocab_size"),
            ("heads", "config.hidden_size", "config.num_labels"),
        ]
    ]
    return submission(folder, lazy, files={"multihead.py": D2L_MULTIHEAD.lstrip()})


def checked_names(component_id, names):
    """Of a submission's {name: object}, those a component's public checks are given: its own, and for an extension
    the core's too, whose model its checks build (a training step steps a Seq2SeqTransformer), as the child that
    grades it holds the core's references."""
    wanted = [*spec.BY_ID[component_id].names]
    if spec.BY_ID[component_id].extension:
        wanted += [name for core in spec.references_for(component_id) for name in core.names]
    return {name: names[name] for name in wanted}


def graded_here(component_id, edits=()):
    """The ComponentResult of component_id's hidden suites on the reference with edits made in its file ((old text,
    new text) pairs), run in this process as the public checks run a student's code (course/local.py): the
    suites, hidden cases, hints and diagnosis of a jailed grading of that component, without the jail, which
    changes none of them (tests/system/test_mutations.py holds a jailed grading to this, component by component).
    The result is completed as grade.py completes a jailed one: a fatal reason scores 0 and is not diagnosed."""
    grading = LocalGrading(mutants.names_with(component_id, edits))
    outcome = run_suites([component_id], grading)[component_id]
    result = ComponentResult(component_id, spec.BY_ID[component_id].points, outcome)
    student = grading.children[component_id]
    result.fatal = student.fatal
    if not student.fatal and not all(o.passed for o in student.observations):
        result.diagnosis = fixtures.evidence_of(component_id).diagnose(component_id, student.observations)
    return result
