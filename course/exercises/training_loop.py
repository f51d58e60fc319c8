"""Part 9's exercises outside the SPEC: the sanity check of overfitting one batch, and the training loop (the
schedule, the batches, clipping, validation every few steps), with the student's graded learning_rate and
training_step (solutions/training.py).

No SPEC component: the hidden suites grade none of this. The notebook copies these definitions, solution regions
and all, as it copies the graded ones, and autograder/course/training.py checks each in the notebook.
"""

from training import learning_rate, training_step


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


def train(
    model, optimizer, batches, validate, *, steps, peak, warmup_steps, every, bos_token_id, pad_token_id, max_norm=None
):
    """Train for `steps` steps, and report every `every` steps: a generator.

    Step s, counted from 1, first sets the learning rate of every group of the optimizer to
    learning_rate(s, peak, warmup_steps, steps), then takes one training_step on the next batch of `batches` (an
    iterator of (source, source_mask, target)), clipping the gradients to max_norm when one is given. After every
    `every` steps it yields (s, the mean of the losses of those `every` steps, validate(model)).
    """
    # Hint 1: what changes from one step to the next besides the batch, and when is it set: before or after the step?
    # Hint 2: a loop over s = 1 .. steps: each optimizer.param_groups entry's "lr" from your learning_rate, then your training_step on next(batches); a list of the losses; every `every` steps, yield.
    # Hint 3: for group in optimizer.param_groups: group["lr"] = learning_rate(step, peak, warmup_steps, steps); losses.append(training_step(model, optimizer, next(batches), ..., max_norm=max_norm)); if step % every == 0: yield step, sum(losses[-every:]) / every, validate(model)
    ### BEGIN SOLUTION
    losses = []
    for step in range(1, steps + 1):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, peak, warmup_steps, steps)
        batch = next(batches)
        losses.append(
            training_step(
                model, optimizer, batch, bos_token_id=bos_token_id, pad_token_id=pad_token_id, max_norm=max_norm
            )
        )
        if step % every == 0:
            yield step, sum(losses[-every:]) / every, validate(model)
    ### END SOLUTION
