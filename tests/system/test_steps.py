"""The notebooks' steps, graded: a graded class that calls the student's own steps is graded on them, fairly: the
grader finds them beside it, and a broken step costs only its own component. (The steps' cells, cases, hints and
public checks: tests/unit/test_steps.py.)"""

import pytest
from support.course_helpers import completed
from support.helpers import First, scores

from autograder.course import notebooks
from autograder.engine.authoring import mistakes
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

# The graded definitions written on the student's own steps, as a student who follows the notebooks writes them:
# each solution region starts with a return on the steps (the reference's code after it never runs).
ON_STEPS = [
    First(
        "scaled_dot_product_attention",
        "weights = attention_weights(masked_scores(attention_scores(query, key), mask))\nreturn weights @ value, weights",
    ),
    First(
        "MultiHeadAttention",
        "source = hidden_states if key_value_states is None else key_value_states\n"
        "q = split_heads(self.query(hidden_states), self.num_heads)\n"
        "k, v = split_heads(self.key(source), self.num_heads), split_heads(self.value(source), self.num_heads)\n"
        "context, weights = attend(q, k, v, mask, self.dropout)\n"
        "return self.output(merge_heads(context)), weights",
    ),
    First("LayerNorm", "return scale_and_shift(normalise(x, *mean_and_variance(x), self.eps), self.weight, self.bias)"),
    First("FeedForward", "return self.dropout(self.linear2(gelu(self.linear1(x))))"),
    First(
        "Embeddings",
        "tables = (self.token_embeddings, self.position_embeddings, self.token_type_embeddings)\n"
        "x = embedding_sum(input_ids, *(table.weight for table in tables), token_type_ids)\n"
        "return self.dropout(self.layer_norm(x))",
    ),
    First("sinusoidal_positional_encoding", "return interleave_sin_cos(sinusoid_angles(max_len, d_model), d_model)"),
    First(
        "greedy_decode",
        "memory = model.encoder(input_ids, attention_mask)\n"
        "tokens = torch.full((input_ids.size(0), 1), bos_token_id, device=input_ids.device)\n"
        "finished = torch.zeros(input_ids.size(0), dtype=torch.bool, device=input_ids.device)\n"
        "for _ in range(max_new_tokens):\n"
        "    logits = model.lm_head(model.decoder(tokens, memory, encoder_attention_mask=attention_mask))\n"
        "    tokens, finished = decode_step(tokens, logits, finished, eos_token_id, pad_token_id)\n"
        "    if finished.all():\n        break\n"
        "return tokens",
    ),
]
# Two steps written wrong: scores not scaled, and finished rows not padded (the rows' own EOS kept).
BROKEN_STEPS = [
    First("attention_scores", "return query @ key.transpose(-2, -1)"),
    First("finish_rows", "return next_token, finished | (next_token == eos_token_id)"),
]
PARTS = (
    "01_attention.ipynb",
    "02_multihead.ipynb",
    "03_feedforward_layernorm.ipynb",
    "04_embeddings.ipynb",
    "07_seq2seq.ipynb",
)


@pytest.mark.parametrize("broken", [False, True], ids=["steps-right", "steps-broken"])
def test_classes_graded_on_the_students_own_steps_are_graded_fairly(tmp_path, sandbox, broken):
    """The grader collects a notebook's helpers with its graded names (one module per notebook): definitions that
    call their own steps get full marks, train mode and gradients included. A broken attention step costs attention
    alone, since the others are graded with the reference's attention, whatever their own steps call; a
    greedy_decode whose finish_rows does not pad loses the decoding test's points, named as the catalog's mistake
    in the class (finished rows not padded) is named."""
    folder = completed(
        notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student", ON_STEPS + (BROKEN_STEPS if broken else [])
    )
    for path in folder.glob("*.ipynb"):
        if path.name not in PARTS:
            path.unlink()
    components = ["attention", "multihead", "layernorm", "feedforward", "embeddings", "seq2seq"]
    results, _ = scores(folder, components=components, sandbox=sandbox)
    for component in components[1:-1]:
        assert results[component].score == results[component].points, results[component].feedback()
    for component in ("attention", "seq2seq"):
        result = results[component]
        assert (result.score < result.points) if broken else (result.score == result.points), result.feedback()
    if broken:
        feedback = results["seq2seq"].feedback()
        assert "test_greedy_decode_matches_hf_generate" in feedback and "test_seq2seq_matches_hf" not in feedback
        assert (
            results["seq2seq"].diagnosis == LIKELY_MISTAKE + mistakes.BY_ID["seq2seq/finished-rows-not-padded"].says
        ), feedback


# Parts 5 and 6 the same way: the encoder layer's two add & norms, the stacks' masks and the pooler on the steps.
LAYERS_ON_STEPS = [
    First(
        "TransformerEncoderLayer",
        "attended, _ = self.attention(hidden_states, mask)\n"
        "first, second = self.attention_norm, self.output_norm\n"
        "x = add_and_norm(hidden_states, self.dropout(attended), first.weight, first.bias, first.eps)\n"
        "return add_and_norm(x, self.feed_forward(x), second.weight, second.bias, second.eps)",
    ),
    First(
        "TransformerEncoder",
        "mask, x = encoder_mask(attention_mask), self.embeddings(input_ids, token_type_ids)\n"
        "for layer in self.layers:\n    x = layer(x, mask)\nreturn x",
    ),
    First(
        "SequenceClassificationHead",
        "return self.classifier(self.dropout(pool(hidden_states, self.pooler.weight, self.pooler.bias)))",
    ),
    First(
        "TransformerDecoder",
        "self_mask = self_attention_mask(input_ids.size(1), attention_mask)\n"
        "cross_mask = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)\n"
        "x = self.embeddings(input_ids)\nfor layer in self.layers:\n"
        "    x = layer(x, encoder_hidden_states, self_mask, cross_mask)\nreturn x",
    ),
]
# add & norm written pre-LN's way, the norm on the sublayer's output alone.
BROKEN_ADD_AND_NORM = First("add_and_norm", "return x + F.layer_norm(sublayer_output, x.shape[-1:], weight, bias, eps)")


@pytest.mark.parametrize("broken", [False, True], ids=["steps-right", "add-and-norm-broken"])
def test_layers_graded_on_the_students_own_steps_are_graded_fairly(tmp_path, sandbox, broken):
    """Parts 5 and 6 on their own steps get full marks; a broken add & norm costs the encoder alone: the heads are
    graded with the reference's encoder, and the decoder's steps are its own."""
    edits = LAYERS_ON_STEPS + ([BROKEN_ADD_AND_NORM] if broken else [])
    folder = completed(notebooks.RELEASE, notebooks.SOURCE, tmp_path / "student", edits)
    components = ["encoder", "heads", "decoder"]
    results, _ = scores(folder, components=components, sandbox=sandbox)
    for component in components[1:]:
        assert results[component].score == results[component].points, results[component].feedback()
    encoder = results["encoder"]
    assert (encoder.score < encoder.points) if broken else (encoder.score == encoder.points), encoder.feedback()
