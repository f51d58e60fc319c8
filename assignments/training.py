"""Training an encoder-decoder with teacher forcing: the shifted input, the loss over real tokens, a warm-up-then-decay
learning rate, gradient clipping, and one step of the optimizer (part 9)."""

import torch
from torch.nn import functional as F


def shift_right(target, bos_token_id):
    """The decoder's input under teacher forcing: BOS, then the target without its last token.

    Args:
        target: (B, T) token ids.

    Returns:
        LongTensor (B, T): row b is [BOS, target[b, 0], ..., target[b, T-2]]. The target is not changed.
    """
    raise NotImplementedError()


def sequence_loss(logits, target, pad_token_id):
    """The mean cross-entropy over the target positions that are not padding.

    Args:
        logits: (B, T, V) the model's scores for each target position.
        target: (B, T) token ids; positions holding pad_token_id carry no loss and do not count in the mean.

    Returns:
        a scalar tensor, still in the graph (backward must reach the logits).
    """
    raise NotImplementedError()


def learning_rate(step, peak, warmup_steps, total_steps):
    """The learning rate of step `step` (counted from 1): a straight line from 0 up to `peak` at step
    warmup_steps, then a straight line down to 0 at step total_steps. warmup_steps = 0 means no warm-up.

        step <= warmup_steps:  peak * step / warmup_steps
        otherwise:             peak * (total_steps - step) / (total_steps - warmup_steps)

    Returns:
        a float.
    """
    raise NotImplementedError()


@torch.no_grad()
def clip_gradient_norm(parameters, max_norm):
    """Scale every gradient down, together, so that their total L2 norm is at most max_norm (about).

    The total norm is that of all the gradients' elements as one vector: the L2 norm of the per-tensor norms.
    When it exceeds max_norm, every gradient is multiplied in place by max_norm / (norm + 1e-6), which leaves
    their directions as they were; the 1e-6 keeps a norm of 0 from dividing by 0. Equal to
    torch.nn.utils.clip_grad_norm_, which this may not call.

    Args:
        parameters: an iterable of the weights (as a model gives them), or a single one; those whose .grad is
            None are left out.
        max_norm: the largest total norm let through.

    Returns:
        a float tensor (a scalar): the total norm before clipping.
    """
    raise NotImplementedError()


def training_step(model, optimizer, batch, *, bos_token_id, pad_token_id, max_norm=None):
    """One step of teacher forcing on batch = (source, source_mask, target); returns the loss as a float.

    The model in train mode (dropout on) reads the source, its 0/1 mask and the shifted target:
    model(source, shift_right(target, bos_token_id), source_mask) gives logits (B, T, V). Then the loss, the
    gradients of this batch alone (what an earlier step left in .grad must not count), clipping to max_norm when
    one is given, and one step of the optimizer along them.

    Args:
        model: a Seq2SeqTransformer.
        optimizer: a torch optimizer of the model's weights.
        batch: (source (B, S) ids, source_mask (B, S) 0/1, target (B, T) ids padded with pad_token_id).
        max_norm: clip the gradients' total norm to it (clip_gradient_norm) before the step; None: no clipping.

    Returns:
        the loss before the step, a float.
    """
    raise NotImplementedError()
