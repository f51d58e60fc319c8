"""The cases of `training`: the shifted input and the loss against the reference, the schedule against the
contract's formula as the reference computes it, clipping against torch's clip_grad_norm_, and one training step by
its effect on the weights (child/effects.py)."""

from typing import cast

import numpy as np
import torch

from autograder.engine.authoring.builder import (
    CONFIG,
    In,
    attention_mask,
    config_arg,
    decoder_config,
    float64,
    randn,
    random_params,
    token_ids,
)
from autograder.engine.authoring.mutants import instantiate
from autograder.engine.child import effects

BOS, PAD = 1, 2
DECODER = decoder_config(CONFIG, vocab_size=36, num_hidden_layers=1)
LEARNING_RATE = 0.5  # large, so that a step that uses stale gradients, or none, moves the weights far off


def build(b):
    shift_cases(b)
    loss_cases(b)
    schedule_cases(b)
    clip_cases(b)
    step_cases(b)


def shift_cases(b):
    g = torch.Generator().manual_seed(b.seed("shift"))
    target = torch.randint(3, DECODER.vocab_size, (3, 5), generator=g)
    b.add(
        "shift",
        "BOS, then the target without its last token",
        "shift",
        "shift_right",
        args=[In("target"), BOS],
        outputs=["decoder_input_ids"],
        inputs={"target": target},
        dtypes=[None],
    )


def loss_cases(b):
    for case_id, about, lengths in (
        ("loss-padded", "rows padded to different lengths", [5, 3, 1]),
        ("loss-whole", "no padding", [4, 4]),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        T = max(lengths)
        target = torch.randint(3, DECODER.vocab_size, (len(lengths), T), generator=g)
        target = target.masked_fill(attention_mask(lengths, T) == 0, PAD)
        b.add(
            case_id,
            f"mean cross-entropy over the real target tokens, {about}",
            "loss",
            "sequence_loss",
            args=[In("logits"), In("target"), PAD],
            outputs=["loss"],
            inputs={"logits": randn(g, len(lengths), T, DECODER.vocab_size, scale=2.0), "target": target},
        )


def schedule_cases(b):
    # The public checks' schedules are other ones, as their other cases are drawn from other seeds.
    peak, total, warmups = (0.03, 10, (0, 2, 5)) if b.public else (0.02, 12, (0, 1, 4))
    for warmup in warmups:
        steps = list(range(1, total + 1))
        rates = [b.reference["learning_rate"](step, peak, warmup, total) for step in steps]
        b.add(
            f"schedule-warmup-{warmup}",
            f"every step of {total}, warm-up over {warmup}",
            "schedule",
            "learning_rate",
            args=[],
            outputs=["rates"],
            inputs={},
            expected=[np.array(rates, dtype=np.float64)],
            dtypes=[None],
            meta={"steps": steps, "peak": peak, "warmup_steps": warmup, "total_steps": total},
            train_outputs=[],
        )


def clip_cases(b):
    """Against torch's clip_grad_norm_: a norm above max_norm (clipped) and one below (left alone), a parameter
    without a gradient among them."""
    shapes = [(3, 4), (5,), (2, 3, 2), (4,)]
    for case_id, max_norm in (("clip-above", 0.5), ("clip-below", 100.0)):
        g = torch.Generator().manual_seed(b.seed(case_id))
        values = [randn(g, *shape) for shape in shapes]
        grads = [randn(g, *shape) for shape in shapes[:-1]] + [None]
        with float64():
            norm, after = effects.clip(
                torch.nn.utils.clip_grad_norm_, [v.double() for v in values], [_double(v) for v in grads], max_norm
            )
            mine, _ = effects.clip(
                b.reference["clip_gradient_norm"], [v.double() for v in values], [_double(v) for v in grads], max_norm
            )
        # A clip returns whatever the function clipping gave: here the reference's and torch's, tensors both.
        assert isinstance(mine, torch.Tensor) and isinstance(norm, torch.Tensor)
        if not torch.allclose(mine, norm, rtol=0, atol=1e-12):
            raise RuntimeError(f"{case_id}: the reference's norm {mine} is not torch's {norm}")
        inputs = {f"value{i}": v for i, v in enumerate(values)}
        inputs |= {f"grad{i}": v for i, v in enumerate(grads) if v is not None}
        b.add(
            case_id,
            f"against torch's clip_grad_norm_, max_norm {max_norm:g}",
            "clip",
            "clip_gradient_norm",
            args=[],
            kwargs={"max_norm": max_norm},
            outputs=["norm", *(f"grad{i}" for i in range(len(shapes) - 1))],
            inputs=inputs,
            expected=[norm, *after[:-1]],
            # The parameters by their inputs, in order, and their gradients (None: the parameter has none).
            meta={
                "values": [f"value{i}" for i in range(len(shapes))],
                "grads": [f"grad{i}" if grad is not None else None for i, grad in enumerate(grads)],
            },
            train_outputs=[],
        )


def step_cases(b):
    """One step from the same weights as the reference's, with and without clipping (which clips there)."""
    init = [config_arg(CONFIG), config_arg(DECODER)]
    model_class = b.reference["Seq2SeqTransformer"]
    for case_id, max_norm in (("step", None), ("step-clipped", 1.0)):
        g = torch.Generator().manual_seed(b.seed(case_id))
        params = {k: v.float() for k, v in random_params(model_class, init, b.seed(f"{case_id}/params")).items()}
        source = token_ids(g, CONFIG, 1, (3, 6))
        target = torch.randint(3, DECODER.vocab_size, (3, 5), generator=g)
        target = target.masked_fill(attention_mask([5, 3, 4], 5) == 0, PAD)
        inputs = {"source": source, "source_mask": attention_mask([6, 4, 5], 6), "target": target}
        kwargs = {"bos_token_id": BOS, "pad_token_id": PAD, "max_norm": max_norm}
        model = instantiate(model_class, init)
        model.load_state_dict({k: v.double() for k, v in params.items()})
        with float64():
            loss, after, _ = effects.step(
                b.reference["training_step"], model.double(), list(inputs.values()), LEARNING_RATE, kwargs
            )
        b.add(
            case_id,
            "one step of SGD from stale gradients" + (f", clipped to {max_norm:g}" if max_norm else ""),
            "step",
            "training_step",
            args=[In("source"), In("source_mask"), In("target")],
            kwargs=kwargs,
            outputs=["loss", *after],
            inputs=inputs,
            params=params,
            expected=[np.float64(cast(float, loss)), *(value.detach() for value in after.values())],
            meta={"model": {"target": "Seq2SeqTransformer", "init": init}, "learning_rate": LEARNING_RATE},
            train_outputs=[],
        )


def _double(value):
    return None if value is None else value.double()
