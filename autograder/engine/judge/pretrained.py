"""Pretrained parity: the student's encoder with a real checkpoint's weights, on real text.

The instructor points `grade --pretrained DIR` at a local BERT checkpoint (the save_pretrained layout,
as in the Hugging Face cache, with its tokenizer). Nothing is downloaded. The check is reported with
the encoder's tag and is never scored: courses differ in which checkpoint, if any, they have.
"""

import os
from pathlib import Path

from autograder.engine.contract import loader
from autograder.engine.contract.errors import Fatal, StudentError, SubmissionError
from autograder.engine.contract.messages import CONFIG, INPUT
from autograder.engine.judge.fixtures import FLOATS, Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.limits import Limits
from autograder.engine.judge.results import ComponentResult
from autograder.engine.judge.run import TestResult
from autograder.engine.judge.sandbox import Sandbox
from autograder.engine.judge.session import HELD
from autograder.engine.judge.suites.checking import check_case

SENTENCES = (
    "Time flies like an arrow.",
    "Fruit flies like a banana.",
    "The quick brown fox jumps over the lazy dog, and then it rests.",
)


def pretrained_case(checkpoint: str | Path) -> Case:
    """A case for TransformerEncoder with the checkpoint's weights; expected from BertModel in float64."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoTokenizer, BertModel
    from transformers.utils import logging

    logging.disable_progress_bar()  # the grader's output is the report alone

    from autograder.engine.child import runtime
    from autograder.engine.contract import spec
    from autograder.engine.judge import hf

    model = BertModel.from_pretrained(checkpoint, local_files_only=True, attn_implementation="eager").double().eval()
    tokenizer = AutoTokenizer.from_pretrained(checkpoint, local_files_only=True)
    batch = tokenizer(list(SENTENCES), padding=True, return_tensors="pt")
    reference = runtime.load_reference(loader.load(spec.SOLUTIONS).as_message(), ["TransformerEncoder"])[
        "TransformerEncoder"
    ]
    config = hf.spec_config(model.config)
    shapes = hf.spec_shapes(reference, model.config)
    params = {k: v.float().numpy() for k, v in hf.to_spec(model.state_dict(), shapes).items()}
    inputs = {k: batch[k].numpy() for k in ("input_ids", "attention_mask", "token_type_ids") if k in batch}
    with torch.no_grad():
        expected = model(**{k: torch.from_numpy(v) for k, v in inputs.items()}).last_hidden_state.numpy()
    return Case(
        component="encoder",
        id=f"pretrained-{Path(checkpoint).name}",
        about=f"{model.config.num_hidden_layers} layers, D={model.config.hidden_size}, on {len(SENTENCES)} padded sentences",
        kind="pretrained",
        target="TransformerEncoder",
        init=[{CONFIG: config}],
        args=[{INPUT: "input_ids"}],
        kwargs={k: {INPUT: k} for k in inputs if k != "input_ids"},
        outputs=["output"],
        dtypes=list(FLOATS),
        params=params,
        inputs=inputs,
        expected={"output": expected},
    )


def check_pretrained(
    path: str | Path, checkpoint: str | Path, device: str = "cpu", limits: Limits | None = None
) -> ComponentResult:
    """A ComponentResult (0 points, tagged encoder) for the student's encoder on the checkpoint."""
    result = ComponentResult("pretrained", 0, tag="encoder")
    try:
        case = pretrained_case(checkpoint)
    except (OSError, ValueError, KeyError) as error:
        result.notes.append(f"the checkpoint {checkpoint} could not be used: {error}")
        return result
    sandbox = Sandbox(device, limits or Limits())
    try:
        parsed = sandbox.parse(path)
        result.flags = parsed.held.get("encoder", [])
        child = sandbox.failed("encoder", HELD) if result.flags else sandbox.start("encoder", parsed)
        for dtype in case.dtypes:
            try:
                check_case(child, case, dtype, {"output": HINTS["encoder"]["pretrained"]})
                result.tests.append(TestResult(f"{case.id}-{dtype}", True))
            except StudentError as error:
                result.tests.append(TestResult(f"{case.id}-{dtype}", False, str(error)))
        result.fatal = child.fatal
        child.close()
    except Fatal as error:
        result.fatal = error.reason
    except SubmissionError as error:
        result.fatal = f"the submission could not be read: {error}"
    finally:
        sandbox.close()
    return result
