"""Everything a course notebook imports from the kit, in one place: `from autograder.notebook import check_attention`.

These names stay fixed whatever moves inside the kit, so that a notebook a student holds keeps working. Each is
imported from the module that holds it when a notebook first asks for it: a notebook that draws nothing never
imports matplotlib, and one that never loads the pretrained checkpoint never imports sentence-transformers.
"""

import importlib

from autograder.engine.contract import spec

HOMES = {
    "autograder.course.public": (
        "Failed",
        "NotStarted",
        *(f"check_{component.id}" for component in spec.ALL_COMPONENTS if spec.has_suite(component)),
        "check_step",
        "config",
        "seeded",
    ),
    "autograder.course.ladder": ("hint",),
    "autograder.course.minilm": ("compare", "pretrained"),
    "autograder.course.jupyter": ("grade_here", "use_notebooks"),
    "autograder.course.pictures": (
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
    ),
    "autograder.course.training": (
        "BOS",
        "DIGIT",
        "EOS",
        "PAD",
        "UNSEEN_LENGTH",
        "VOCAB_SIZE",
        "WIDTH",
        "batch_of",
        "check_overfit_one_batch",
        "check_pre_ln",
        "check_train",
        "digits",
        "reversal_split",
        "targets",
    ),
    "autograder.course.language_model": ("Characters", "check_char_lm", "check_generate", "corpus"),
    "autograder.breakout.bank": ("check_format", "discuss", "grade_answer"),
}
HOME = {name: module for module, names in HOMES.items() for name in names}
__all__ = sorted(HOME)


def __getattr__(name):
    if name not in HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(HOME[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
