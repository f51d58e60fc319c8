"""The public checks, where the notebooks import them from: `from autograder.public import check_attention`.

They live in autograder/course/public.py (the real checkpoint's, pretrained and compare, in course/minilm.py);
this name stays fixed, so that a notebook a student holds
keeps working whatever moves inside the kit.
"""

from autograder.course.minilm import compare, pretrained
from autograder.course.public import (
    Failed,
    NotStarted,
    check_attention,
    check_decoder,
    check_embeddings,
    check_encoder,
    check_feedforward,
    check_heads,
    check_layernorm,
    check_masking,
    check_multihead,
    check_seq2seq,
    check_step,
    config,
    seeded,
)

__all__ = [
    "Failed",
    "NotStarted",
    "check_attention",
    "check_decoder",
    "check_embeddings",
    "check_encoder",
    "check_feedforward",
    "check_heads",
    "check_layernorm",
    "check_masking",
    "check_multihead",
    "check_seq2seq",
    "check_step",
    "compare",
    "config",
    "pretrained",
    "seeded",
]
