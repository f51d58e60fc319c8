"""The catalog's mistakes in `encoder`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries, family

# The padding mask dropped at either level: by the stack, which passes none to its layers, or by a layer, which
# passes none to its attention.
MASK_DROPPED = {
    "by the encoder": {"": [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")]},
    "by the layer": {
        "": [("attended, _ = self.attention(hidden_states, mask)", "attended, _ = self.attention(hidden_states)")]
    },
}

ENC_ATTN = "self.attention_norm(hidden_states + self.dropout(attended))"


MISTAKES = entries(
    "encoder",
    Mistake(
        "pre-LN instead of post-LN",
        says="the layer norms come before the sub-blocks (pre-LN); BERT is post-LN: x = norm(x + sub_block(x)).",
        edits=[
            (
                "attended, _ = self.attention(hidden_states, mask)",
                "attended, _ = self.attention(self.attention_norm(hidden_states), mask)",
            ),
            (f"hidden_states = {ENC_ATTN}", "hidden_states = hidden_states + self.dropout(attended)"),
            (
                "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "return hidden_states + self.feed_forward(self.output_norm(hidden_states))",
            ),
        ],
    ),
    Mistake(
        "residual added after the norm",
        says="the residual is added after the layer norm, x + norm(sub_block(x)); add it inside: norm(x + "
        "sub_block(x)).",
        edits=[(ENC_ATTN, "hidden_states + self.attention_norm(self.dropout(attended))")],
    ),
    Mistake(
        "attention residual forgotten",
        says="the attention sub-block has no residual; normalise x + attention(x), not attention(x) alone.",
        edits=[(ENC_ATTN, "self.attention_norm(self.dropout(attended))")],
    ),
    Mistake(
        "feed-forward residual forgotten",
        says="the feed-forward sub-block has no residual; normalise x + feed_forward(x).",
        edits=[
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(self.feed_forward(hidden_states))",
            )
        ],
    ),
    Mistake(
        "one norm for both sub-blocks",
        says="attention_norm is used after both sub-blocks; the feed-forward sub-block has its own, output_norm.",
        edits=[
            (
                "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "return self.attention_norm(hidden_states + self.feed_forward(hidden_states))",
            )
        ],
    ),
    Mistake(
        "padding mask not passed to the layers",
        says="the padding mask never reaches the attention (the encoder does not pass it to its layers, or a layer "
        "not on to its attention), so real tokens attend to padding; pass padding_mask(attention_mask) to every "
        "layer, and the layer's mask to self.attention.",
        edits=MASK_DROPPED["by the encoder"][""],
        variants=family(MASK_DROPPED["by the encoder"][""], MASK_DROPPED),
    ),
    Mistake(
        "token types dropped",
        says="token_type_ids are not passed to the embeddings; pass them on.",
        edits=[("self.embeddings(input_ids, token_type_ids)", "self.embeddings(input_ids)")],
    ),
    Mistake(
        "residual summed in float32",
        says="the residual is summed in float32, so float64 inputs lose precision; keep the input's dtype (no "
        ".float()).",
        edits=[
            (
                ENC_ATTN,
                "self.attention_norm((hidden_states.float() + self.dropout(attended).float()).to(hidden_states.dtype))",
            )
        ],
    ),
    Mistake(
        "layer norm built without config.layer_norm_eps",
        says="a layer norm does not get config.layer_norm_eps (it keeps its default, or a number written in); pass "
        "eps=config.layer_norm_eps.",
        edits=[
            (
                "self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.attention_norm = LayerNorm(config.hidden_size)",
            )
        ],
    ),
    Mistake(
        "two layers hard-coded",
        says="the encoder has a fixed 2 layers; build config.num_hidden_layers of them.",
        edits=[("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
    ),
    Mistake(
        "attention output not dropped out",
        says="the attention's output is added to the residual without dropout; BERT applies self.dropout to it first: "
        "attention_norm(x + dropout(attention(x))).",
        edits=[(ENC_ATTN, "self.attention_norm(hidden_states + attended)")],
    ),
    Mistake(
        "dropout on the residual sum",
        says="dropout is applied to the residual sum; BERT applies it to the attention's output alone, before the "
        "sum: attention_norm(x + dropout(attention(x))).",
        edits=[(ENC_ATTN, "self.attention_norm(self.dropout(hidden_states + attended))")],
    ),
    Mistake(
        "feed-forward output dropped out twice",
        says="the feed-forward's output goes through dropout again; FeedForward already ends in dropout, so the layer "
        "adds none: output_norm(x + feed_forward(x)).",
        edits=[
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(hidden_states + self.dropout(self.feed_forward(hidden_states)))",
            )
        ],
    ),
    Mistake(
        "layers cut from each other",
        says="each layer's input is detached, so no gradient reaches the layers below the last one, nor the "
        "embeddings; pass hidden_states on as it is.",
        edits=[("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states.detach(), mask)")],
    ),
)
