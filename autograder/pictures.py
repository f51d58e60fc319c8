"""The notebooks' pictures, where the notebooks import them from: `from autograder.pictures import plot_matrix`.

They live in autograder/course/pictures.py; this name stays fixed, so that a notebook a student holds
keeps working whatever moves inside the kit.
"""

from autograder.course.pictures import (
    attention_maps,
    cross_attention_maps,
    plot_attention,
    plot_curves,
    plot_decoder_layer,
    plot_encoder_decoder,
    plot_head_split,
    plot_loss,
    plot_masks,
    plot_matrix,
)

__all__ = [
    "attention_maps",
    "cross_attention_maps",
    "plot_attention",
    "plot_curves",
    "plot_decoder_layer",
    "plot_encoder_decoder",
    "plot_head_split",
    "plot_loss",
    "plot_masks",
    "plot_matrix",
]
