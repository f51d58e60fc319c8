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
    # Hint 1: the decoder must predict target[t] having seen only the tokens before it: what does it read at position 0, and which target token falls off the end?
    # Hint 2: a (B, 1) column filled with bos_token_id, joined along dim 1 with the target less its last column.
    # Hint 3: bos = torch.full_like(target[:, :1], bos_token_id); return torch.cat([bos, target[:, :-1]], dim=1)
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
    # Hint 1: a classification over V at each of B·T positions, some of which are padding: which positions count, and what is the mean taken over?
    # Hint 2: cross-entropy takes (N, V) scores and (N,) classes: merge B and T, and tell it which class id to ignore.
    # Hint 3: return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)
    ### BEGIN SOLUTION
    return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)
    ### END SOLUTION


def learning_rate(step, peak, warmup_steps, total_steps):
    """The learning rate of step `step` (counted from 1): a straight line from 0 up to `peak` at step
    warmup_steps, then a straight line down to 0 at step total_steps. warmup_steps = 0 means no warm-up.

        step <= warmup_steps:  peak * step / warmup_steps
        otherwise:             peak * (total_steps - step) / (total_steps - warmup_steps)

    Returns:
        a float.
    """
    # Hint 1: which of the two lines holds at step = warmup_steps, and which is ever reached when warmup_steps is 0?
    # Hint 2: one comparison of step with warmup_steps chooses the line; each line is one product and one division.
    # Hint 3: if step <= warmup_steps: return peak * step / warmup_steps; else return peak * (total_steps - step) / (total_steps - warmup_steps)
    ### BEGIN SOLUTION
    if step <= warmup_steps:
        return peak * step / warmup_steps
    return peak * (total_steps - step) / (total_steps - warmup_steps)
    ### END SOLUTION


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
    # Hint 1: the total norm treats every gradient element as one long vector: how do the norms of the pieces combine into the norm of the whole?
    # Hint 2: keep the gradients that exist; the L2 norm of their L2 norms; scale each in place by max_norm / (norm + 1e-6) when the norm is larger.
    # Hint 3: grads = [p.grad for p in params if p.grad is not None]; total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])); if total > max_norm: each g.mul_(max_norm / (total + 1e-6))
    ### BEGIN SOLUTION
    parameters = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.zeros(())
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))  # ()
    if norm > max_norm:
        for grad in grads:
            grad.mul_(max_norm / (norm + 1e-6))
    return norm
    ### END SOLUTION


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
    # Hint 1: what does .grad hold when this step begins, and what must it hold when the optimizer steps? In which mode must the model be?
    # Hint 2: train mode; logits of the shifted target; the loss; clear the old gradients, then backward, the optional clipping, and the optimizer's step; the loss as a Python float.
    # Hint 3: model.train(); loss = sequence_loss(model(source, shift_right(target, bos_token_id), source_mask), target, pad_token_id); optimizer.zero_grad(); loss.backward(); clip if max_norm; optimizer.step(); return loss.item()
    ### BEGIN SOLUTION
    source, source_mask, target = batch
    model.train()
    logits = model(source, shift_right(target, bos_token_id), source_mask)  # (B, T, V)
    loss = sequence_loss(logits, target, pad_token_id)
    optimizer.zero_grad()
    loss.backward()
    if max_norm is not None:
        clip_gradient_norm(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()
    ### END SOLUTION
