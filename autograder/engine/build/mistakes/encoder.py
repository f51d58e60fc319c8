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
        [(ENC_ATTN, "hidden_states + self.attention_norm(self.dropout(attended))")],
    ),
    (
        "attention residual forgotten",
        [(ENC_ATTN, "self.attention_norm(self.dropout(attended))")],
    ),
    (
        "feed-forward residual forgotten",
        [
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(self.feed_forward(hidden_states))",
            )
        ],
    ),
    (
        "one norm for both sub-blocks",
        [
            (
                "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "return self.attention_norm(hidden_states + self.feed_forward(hidden_states))",
            )
        ],
    ),
    (
        "padding mask not passed to the layers",
        MASK_DROPPED["by the encoder"][""],
        family(MASK_DROPPED["by the encoder"][""], MASK_DROPPED),
    ),
    (
        "token types dropped",
        [("self.embeddings(input_ids, token_type_ids)", "self.embeddings(input_ids)")],
    ),
    (
        "residual summed in float32",
        [
            (
                ENC_ATTN,
                "self.attention_norm((hidden_states.float() + self.dropout(attended).float()).to(hidden_states.dtype))",
            )
        ],
    ),
    (
        "layer norm built without config.layer_norm_eps",
        [
            (
                "self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.attention_norm = LayerNorm(config.hidden_size)",
            )
        ],
    ),
    (
        "two layers hard-coded",
        [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
    ),
    (
        "attention output not dropped out",
        [(ENC_ATTN, "self.attention_norm(hidden_states + attended)")],
    ),
    (
        "dropout on the residual sum",
        [(ENC_ATTN, "self.attention_norm(self.dropout(hidden_states + attended))")],
    ),
    (
        "feed-forward output dropped out twice",
        [
            (
                "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "self.output_norm(hidden_states + self.dropout(self.feed_forward(hidden_states)))",
            )
        ],
    ),
    (
        "layers cut from each other",
        [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states.detach(), mask)")],
    ),
)
