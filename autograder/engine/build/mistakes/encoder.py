"""The catalog's mistakes in `encoder`."""

from autograder.engine.build.mistakes.mistake import entries, family

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
    (
        "pre-LN instead of post-LN",
        "the layer norms come before the sub-blocks (pre-LN); BERT is post-LN: x = norm(x + sub_block(x)).",
        [
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
    (
        "residual added after the norm",
        "the residual is added after the layer norm, x + norm(sub_block(x)); add it inside: norm(x + sub_block(x)).",
        [(ENC_ATTN, "hidden_states + self.attention_norm(self.dropout(attended))")],
    ),
    (
        "attention residual forgotten",
        "the attention sub-block has no residual; normalise x + attention(x), not attention(x) alone.",
        [(ENC_ATTN, "self.attention_norm(self.dropout(attended))")],
    ),
    (
        "feed-forward residual forgotten",
        "the feed-forward sub-block has no residual; normalise x + feed_forward(x).",
        [
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(self.feed_forward(hidden_states))",
            )
        ],
    ),
    (
        "one norm for both sub-blocks",
        "attention_norm is used after both sub-blocks; the feed-forward sub-block has its own, output_norm.",
        [
            (
                "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "return self.attention_norm(hidden_states + self.feed_forward(hidden_states))",
            )
        ],
    ),
    (
        "padding mask not passed to the layers",
        "the padding mask never reaches the attention (the encoder does not pass it to its layers, or a layer not "
        "on to its attention), so real tokens attend to padding; pass padding_mask(attention_mask) to every layer, "
        "and the layer's mask to self.attention.",
        MASK_DROPPED["by the encoder"][""],
        family(MASK_DROPPED["by the encoder"][""], MASK_DROPPED),
    ),
    (
        "token types dropped",
        "token_type_ids are not passed to the embeddings; pass them on.",
        [("self.embeddings(input_ids, token_type_ids)", "self.embeddings(input_ids)")],
    ),
    (
        "residual summed in float32",
        "the residual is summed in float32, so float64 inputs lose precision; keep the input's dtype (no .float()).",
        [
            (
                ENC_ATTN,
                "self.attention_norm((hidden_states.float() + self.dropout(attended).float()).to(hidden_states.dtype))",
            )
        ],
    ),
    (
        "layer norm built without config.layer_norm_eps",
        "a layer norm does not get config.layer_norm_eps (it keeps "
        "its default, or a number written in); pass eps=config.layer_norm_eps.",
        [
            (
                "self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.attention_norm = LayerNorm(config.hidden_size)",
            )
        ],
    ),
    (
        "two layers hard-coded",
        "the encoder has a fixed 2 layers; build config.num_hidden_layers of them.",
        [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
    ),
    (
        "attention output not dropped out",
        "the attention's output is added to the residual without dropout; BERT "
        "applies self.dropout to it first: attention_norm(x + dropout(attention(x))).",
        [(ENC_ATTN, "self.attention_norm(hidden_states + attended)")],
    ),
    (
        "dropout on the residual sum",
        "dropout is applied to the residual sum; BERT applies it to the attention's "
        "output alone, before the sum: attention_norm(x + dropout(attention(x))).",
        [(ENC_ATTN, "self.attention_norm(self.dropout(hidden_states + attended))")],
    ),
    (
        "feed-forward output dropped out twice",
        "the feed-forward's output goes through dropout again; FeedForward "
        "already ends in dropout, so the layer adds none: output_norm(x + feed_forward(x)).",
        [
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(hidden_states + self.dropout(self.feed_forward(hidden_states)))",
            )
        ],
    ),
    (
        "layers cut from each other",
        "each layer's input is detached, so no gradient reaches the layers below the last "
        "one, nor the embeddings; pass hidden_states on as it is.",
        [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states.detach(), mask)")],
    ),
)
