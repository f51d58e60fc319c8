"""The steps towards `seq2seq`, in the order the notebook asks them: greedy decoding's, on logits that the cases
make up (a step reads the model's logits, not the model: its check holds no Seq2SeqTransformer to call)."""

import torch

from autograder.engine.authoring.builder import In, randn
from autograder.engine.authoring.steps.step import Step, of


def _next_tokens(c):
    for case_id, about, B, L, V in (
        ("B3-L4", "logits (3, 4, 7)", 3, 4, 7),
        ("B2-L1", "logits (2, 1, 5): BOS only", 2, 1, 5),
    ):
        g = c.generator(case_id)
        c.add(case_id, about, {"logits": randn(g, B, L, V, scale=2.0)}, [In("logits")])


def _finish_rows(c):
    # Hand-picked: a row finished before that proposes a token, one that emits EOS now, one that goes on, and a row
    # finished before that proposes EOS again; the second case with other ids, PAD not 0.
    for case_id, about, proposed, finished, eos, pad in (
        ("mixed", "4 rows, EOS = 2, PAD = 0", [7, 2, 5, 2], [True, False, False, True], 2, 0),
        ("pad-9", "3 rows, EOS = 3, PAD = 9", [3, 3, 4], [False, True, False], 3, 9),
    ):
        inputs = {"next_token": torch.tensor(proposed), "finished": torch.tensor(finished)}
        args = [In("next_token"), In("finished"), eos, pad]
        c.add(case_id, about, inputs, args, outputs=("next_token", "finished"), dtypes=(None,))


def _decode_step(c):
    # Row 0 emits EOS now, row 1 finished at the step before (its EOS, then PAD) and proposes 4, row 2 goes on.
    g = c.generator("finished-row")
    logits = randn(g, 3, 3, 6)
    logits[:, -1] += 10 * torch.nn.functional.one_hot(torch.tensor([2, 4, 3]), 6)  # the last position's arg-max
    inputs = {
        "tokens": torch.tensor([[1, 4, 5], [1, 2, 0], [1, 3, 3]]),
        "logits": logits,
        "finished": torch.tensor([False, True, False]),
    }
    args = [In("tokens"), In("logits"), In("finished"), 2, 0]
    about = "tokens (3, 3), logits (3, 3, 6), a row finished before, EOS = 2, PAD = 0"
    c.add("finished-row", about, inputs, args, outputs=("tokens", "finished"))
    g = c.generator("first-step")
    inputs = {
        "tokens": torch.ones(2, 1, dtype=torch.long),
        "logits": randn(g, 2, 1, 5),
        "finished": torch.zeros(2).bool(),
    }
    args = [In("tokens"), In("logits"), In("finished"), 4, 0]
    about = "tokens (2, 1): BOS only, logits (2, 1, 5), EOS = 4, PAD = 0"
    c.add("first-step", about, inputs, args, outputs=("tokens", "finished"))


def _finished_first(next_token, finished, pad_token_id):
    """finish_rows with the rows finished after the step padded: a row's own EOS becomes PAD."""
    return next_token.masked_fill(finished, pad_token_id), finished


STEPS = of(
    "seq2seq",
    Step(
        "next_tokens",
        "the greedy choice",
        "The LM head scores every position of the tokens so far, logits (B, L, V), and position l scores the "
        "token that follows token l: only the last position scores a token that is not there yet. `next_tokens` "
        "returns the arg-max over V of the last position's logits, (B,). (Running the LM head on the last position "
        "alone, h[:, -1] (B, D) → (B, V), as in the example above, gives the same tokens for less work; the step "
        "takes every position's logits, as Hugging Face's `generate()` reads them.)",
        hint=(
            "the most likely token at the LAST position of each row, over the vocabulary: the position that "
            "scores the token to come; a LongTensor (B,)."
        ),
        wrong=lambda logits: logits[:, 0].argmax(dim=-1),  # the first position's
        cases=_next_tokens,
        minutes=5,
        difficulty="easy",
    ),
    Step(
        "finish_rows",
        "finished rows",
        "`finish_rows(next_token, finished, eos_token_id, pad_token_id)` puts PAD in every row that finished at an "
        "earlier step, (B,), and returns it with the rows finished after this step: those, and the rows whose "
        "token is EOS. The order matters: pad with the rows finished *before* the step, or a row's own EOS becomes "
        "PAD. It computes the table's last column from the two before it, as the example above did for the "
        "table's step 2.",
        hint=(
            "a row finished BEFORE this step gets pad_token_id; a row that emits eos_token_id now keeps its EOS "
            "and is finished from then on; a finished row stays finished."
        ),
        wrong=lambda next_token, finished, eos_token_id, pad_token_id: _finished_first(
            next_token, finished | (next_token == eos_token_id), pad_token_id
        ),
        cases=_finish_rows,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "decode_step",
        "one step of the loop",
        "`decode_step(tokens, logits, finished, eos_token_id, pad_token_id)`: `next_tokens` and `finish_rows`, "
        "then each row's new token appended after its tokens, tokens (B, L) → (B, L + 1) (the new tokens as a "
        "column, (B, 1)). It returns `(tokens, finished)`. Its logits are the LM head's on every position, "
        "(B, L, V), as `next_tokens` takes them: given (B, V) instead, `logits[:, -1]` would pick one number for "
        "every row, silently.",
        hint=(
            "the next tokens of the logits, then finish_rows; the new tokens appended as the last column, (B, L +"
            " 1); returns (tokens, finished)."
        ),
        wrong=lambda tokens, logits, finished, eos_token_id, pad_token_id: (  # finished rows not padded
            torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1),
            finished | (logits[:, -1].argmax(-1) == eos_token_id),
        ),
        cases=_decode_step,
        minutes=10,
        difficulty="medium",
    ),
)
