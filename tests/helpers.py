"""Building test submissions from the reference, and grading them, for the kit's own tests."""
import shutil

from autograder.engine.contract import spec
from autograder.engine.judge.grade import grade
from autograder.engine.judge.sandbox import Limits


def submission(folder, edits=(), files=None, drop=()):
    """A copy of the reference in folder, with textual edits applied.

    Args:
        edits: (component id, old text, new text) triples; each old text must occur exactly once,
            so that an edit cannot silently stop applying when the reference changes.
        files: {file name: content} to add or replace.
        drop: component ids whose file is left out.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for component in spec.COMPONENTS:
        if component.id not in drop:
            shutil.copy(component.reference, folder / component.reference.name)
    for component_id, old, new in edits:
        path = folder / f"{component_id}.py"
        text = path.read_text()
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
        path.write_text(text.replace(old, new))
    for name, content in (files or {}).items():
        (folder / name).write_text(content)
    return folder


TIME_LIMIT = 20.0  # seconds per component: the kit's tests grade small submissions


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


def lazy_submission(folder):
    """The reference with every linear layer of multi-head, feed-forward and heads an nn.LazyLinear, as d2l
    builds its projections: no input size until the first call (or until weights are loaded)."""
    lazy = [(c, f"nn.Linear({size}, {out})", f"nn.LazyLinear({out})") for c, size, out in [
        ("feedforward", "config.hidden_size", "config.intermediate_size"),
        ("feedforward", "config.intermediate_size", "config.hidden_size"),
        ("heads", "config.hidden_size", "config.vocab_size"),
        ("heads", "config.hidden_size", "config.num_labels"),
    ]]
    multihead = spec.BY_ID["multihead"].reference.read_text().replace(
        "nn.Linear(config.hidden_size, config.hidden_size)", "nn.LazyLinear(config.hidden_size)")
    assert "nn.Linear" not in multihead
    return submission(folder, lazy, files={"multihead.py": multihead})
