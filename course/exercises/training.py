"""Part 9's exercises: the steps of training an encoder-decoder with teacher forcing, a warm-up-then-decay
learning rate, and the sanity check of overfitting one batch.

No SPEC component: the hidden suites grade none of this. The notebook copies these definitions, solution
regions and all, as it copies the graded ones, and autograder/course/training.py checks each in the notebook.
"""

import torch
from torch.nn import functional as F


def shift_right(target, bos_token_id):
    """The decoder's input under teacher forcing: BOS, then the target without its last token.

    Args:
        target: (B, T) token ids.

    Returns:
        LongTensor (B, T): row b is [BOS, target[b, 0], ..., target[b, T-2]]. The target is not changed.
    """
    # Hint 1: the decoder reads the target one step late: what comes first in every row, and which token of the target is left out?
    # Hint 2: a (B, 1) column of bos_token_id (torch.full_like(target[:, :1], ...)), then target[:, :-1], along dim 1.
    # Hint 3: return torch.cat([torch.full_like(target[:, :1], bos_token_id), target[:, :-1]], dim=1)
    ### BEGIN SOLUTION
    bos = torch.full_like(target[:, :1], bos_token_id)  # (B, 1)
    return torch.cat([bos, target[:, :-1]], dim=1)  # (B, T)
    ### END SOLUTION


def sequence_loss(logits, target, pad_token_id):
    """The mean cross-entropy over the target positions that are not padding.

    Args:
        logits: (B, T, V) the model's scores for each target position.
        target: (B, T) token ids; positions holding pad_token_id carry no loss and do not count in the mean.

    Returns:
        a scalar tensor, still in the graph (backward must reach the logits).
    """
    # Hint 1: the loss averages over real tokens only: which shapes does a classification loss want, and how are padding targets left out?
    # Hint 2: F.cross_entropy takes (N, V) and (N,): flatten B and T together; ignore_index=pad_token_id.
    # Hint 3: return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)
    ### BEGIN SOLUTION
    return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)
    ### END SOLUTION


def training_step(model, optimizer, batch, *, bos_token_id, pad_token_id):
    """One step of teacher forcing on batch = (source, source_mask, target); returns the loss as a float.

    The model in train mode (dropout on) reads the source, its 0/1 mask and the shifted target:
    model(source, decoder_input_ids, source_mask) gives logits (B, T, V). Then the loss, and one update of the
    parameters by the optimizer along this batch's gradient alone (gradients add up from one pass to the next
    until they are cleared).
    """
    # Hint 1: which mode must the model be in, what does the decoder read, and which three optimiser calls make one update, in which order?
    # Hint 2: model.train(); logits from shift_right(target, ...); sequence_loss; zero_grad, backward, step; .item().
    # Hint 3: model.train(); loss = sequence_loss(model(source, shift_right(target, bos_token_id), source_mask), target, pad_token_id); optimizer.zero_grad(); loss.backward(); optimizer.step(); return loss.item()
    ### BEGIN SOLUTION
    source, source_mask, target = batch
    model.train()
    logits = model(source, shift_right(target, bos_token_id), source_mask)  # (B, T, V)
    loss = sequence_loss(logits, target, pad_token_id)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
    ### END SOLUTION


def learning_rate(step, peak, warmup_steps, total_steps):
    """The learning rate of step `step` (counted from 1): a straight line from 0 up to `peak` at step
    warmup_steps, then a straight line down to 0 at step total_steps. warmup_steps = 0 means no warm-up.

        step <= warmup_steps:  peak * step / warmup_steps
        otherwise:             peak * (total_steps - step) / (total_steps - warmup_steps)
    """
    # Hint 1: which of the two lines holds at step = warmup_steps, and what happens when warmup_steps is 0?
    # Hint 2: the two lines of the formula above; with warmup_steps = 0 the first is never taken (no division by 0).
    # Hint 3: if step <= warmup_steps: return peak * step / warmup_steps; return peak * (total_steps - step) / (total_steps - warmup_steps)
    ### BEGIN SOLUTION
    if step <= warmup_steps:
        return peak * step / warmup_steps
    return peak * (total_steps - step) / (total_steps - warmup_steps)
    ### END SOLUTION


def overfit_one_batch(model, optimizer, batch, steps, *, bos_token_id, pad_token_id):
    """Train on the same batch `steps` times with training_step; returns the list of the `steps` losses."""
    # Hint 1: one training step is written: what does repeating it on the same batch return?
    # Hint 2: a loop (or a list comprehension) calling training_step(model, optimizer, batch, ...) each time.
    # Hint 3: return [training_step(model, optimizer, batch, bos_token_id=bos_token_id, pad_token_id=pad_token_id) for _ in range(steps)]
    ### BEGIN SOLUTION
    return [
        training_step(model, optimizer, batch, bos_token_id=bos_token_id, pad_token_id=pad_token_id)
        for _ in range(steps)
    ]
    ### END SOLUTION
