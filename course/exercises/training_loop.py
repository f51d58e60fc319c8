"""Part 9's exercises outside the SPEC: the sanity check of overfitting one batch, the training loop (the
schedule, the batches, clipping, validation every few steps), with the student's graded learning_rate and
training_step (solutions/training.py), and a pre-LN variant of the student's encoder and decoder layers.

No SPEC component: the hidden suites grade none of this. The notebook copies these definitions, solution regions
and all, as it copies the graded ones, and autograder/course/training.py checks each in the notebook.
"""

from decoder import TransformerDecoderLayer
from encoder import TransformerEncoderLayer
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


class PreLNEncoderLayer(TransformerEncoderLayer):
    """Your encoder layer, pre-LN: each layer norm moved in front of its sub-block, the residual sum left as it is.

        h = x + dropout(attention(attention_norm(x), mask))
        out = h + feed_forward(output_norm(h))

    Same modules, same weights: only forward changes.
    """

    def forward(self, hidden_states, mask=None):
        # Hint 1: post-LN normalises the sum; pre-LN normalises what goes into each sub-block: what does the residual add to?
        # Hint 2: the attention reads self.attention_norm(x), and x plus its dropped-out output is h; the feed-forward reads self.output_norm(h), and h plus its output is returned.
        # Hint 3: attended, _ = self.attention(self.attention_norm(hidden_states), mask); h = hidden_states + self.dropout(attended); return h + self.feed_forward(self.output_norm(h))
        ### BEGIN SOLUTION
        attended, _ = self.attention(self.attention_norm(hidden_states), mask)
        hidden_states = hidden_states + self.dropout(attended)
        return hidden_states + self.feed_forward(self.output_norm(hidden_states))
        ### END SOLUTION


class PreLNDecoderLayer(TransformerDecoderLayer):
    """Your decoder layer, pre-LN, as PreLNEncoderLayer: three sub-blocks, each reading its own layer norm of its
    input (self-attention with self_mask, cross-attention to encoder_hidden_states with cross_mask, feed-forward),
    each added to its input, dropout on the two attentions' outputs."""

    def forward(self, hidden_states, encoder_hidden_states, self_mask=None, cross_mask=None):
        # Hint 1: the encoder's pre-LN layer, with one sub-block more in the middle: which norm goes with which block?
        # Hint 2: self_attention reads self_attention_norm(x); cross_attention reads cross_attention_norm(h) with key_value_states=encoder_hidden_states; feed_forward reads output_norm(h); each output added to what the block read from.
        # Hint 3: a, _ = self.self_attention(self.self_attention_norm(h), self_mask); h = h + self.dropout(a); a, _ = self.cross_attention(self.cross_attention_norm(h), cross_mask, key_value_states=encoder_hidden_states); h = h + self.dropout(a); return h + self.feed_forward(self.output_norm(h))
        ### BEGIN SOLUTION
        attended, _ = self.self_attention(self.self_attention_norm(hidden_states), self_mask)
        hidden_states = hidden_states + self.dropout(attended)
        attended, _ = self.cross_attention(
            self.cross_attention_norm(hidden_states), cross_mask, key_value_states=encoder_hidden_states
        )
        hidden_states = hidden_states + self.dropout(attended)
        return hidden_states + self.feed_forward(self.output_norm(hidden_states))
        ### END SOLUTION
