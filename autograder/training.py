"""Part 9's task and the checks of its exercises, where the notebook imports them from:
`from autograder.training import check_training_step`.

They live in autograder/course/training.py; this name stays fixed, so that a notebook a student holds
keeps working whatever moves inside the kit.
"""

from autograder.course.training import (
    BOS,
    DIGIT,
    EOS,
    PAD,
    UNSEEN_LENGTH,
    VOCAB_SIZE,
    WIDTH,
    StepFailed,
    batch_of,
    check_learning_rate,
    check_overfit_one_batch,
    check_sequence_loss,
    check_shift_right,
    check_training_step,
    digits,
    reversal_split,
    targets,
)

__all__ = [
    "BOS",
    "DIGIT",
    "EOS",
    "PAD",
    "UNSEEN_LENGTH",
    "VOCAB_SIZE",
    "WIDTH",
    "StepFailed",
    "batch_of",
    "check_learning_rate",
    "check_overfit_one_batch",
    "check_sequence_loss",
    "check_shift_right",
    "check_training_step",
    "digits",
    "reversal_split",
    "targets",
]
