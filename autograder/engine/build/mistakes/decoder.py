"""The catalog's mistakes in `decoder`."""

from autograder.engine.build.mistakes.mistake import entries, family

# The source's padding mask dropped at either level: by a layer, which passes none to its cross-attention, or by
# the stack, which passes none to its layers.
CROSS_MASK_DROPPED = {
    "by the layer": {
        "": [("self.cross_attention(hidden_states, cross_mask,", "self.cross_attention(hidden_states, None,")]
    },
    "by the decoder": {
        "": [
            (
                "layer(hidden_states, encoder_hidden_states, self_mask, cross_mask)",
                "layer(hidden_states, encoder_hidden_states, self_mask)",
            )
        ]
    },
}

DEC_CROSS = "attended, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)"


MISTAKES = entries(
    "decoder",
    (
        "no causal mask",
        [
            (
                "self_mask = causal_mask(input_ids.size(1), device=input_ids.device)",
                "self_mask = causal_mask(input_ids.size(1), device=input_ids.device) | True",
            )
        ],
    ),
    (
        "masks combined with or",
        [
            (
                "self_mask = self_mask & padding_mask(attention_mask)",
                "self_mask = self_mask | padding_mask(attention_mask)",
            )
        ],
    ),
    (
        "target padding ignored",
        [("self_mask = self_mask & padding_mask(attention_mask)", "self_mask = self_mask")],
    ),
    (
        "cross-attention attends to the decoder itself",
        [("key_value_states=encoder_hidden_states", "key_value_states=hidden_states")],
    ),
    (
        "cross mask ignored",
        CROSS_MASK_DROPPED["by the layer"][""],
        family(CROSS_MASK_DROPPED["by the layer"][""], CROSS_MASK_DROPPED),
    ),
    (
        "cross-attention before self-attention",
        [
            (
                "        attended, _ = self.self_attention(hidden_states, self_mask)\n"
                "        hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))\n"
                f"        {DEC_CROSS}\n"
                "        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(attended))\n",
                f"        {DEC_CROSS}\n"
                "        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(attended))\n"
                "        attended, _ = self.self_attention(hidden_states, self_mask)\n"
                "        hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))\n",
            )
        ],
    ),
    (
        "cross-attention residual forgotten",
        [
            (
                "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                "self.cross_attention_norm(self.dropout(attended))",
            )
        ],
    ),
    (
        "output norm built without config.layer_norm_eps",
        [
            (
                "self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.output_norm = LayerNorm(config.hidden_size)",
            )
        ],
    ),
    (
        "two layers hard-coded",
        [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
    ),
    (
        "cross-attention output not dropped out",
        [
            (
                "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                "self.cross_attention_norm(hidden_states + attended)",
            )
        ],
    ),
    (
        "encoder states detached",
        [("key_value_states=encoder_hidden_states", "key_value_states=encoder_hidden_states.detach()")],
    ),
)
