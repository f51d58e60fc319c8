"""The catalog's mistakes in `decoder`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries, family

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
    Mistake(
        "no causal mask",
        says="the self-attention has no causal mask, so each position sees later ones; start from causal_mask(T).",
        edits=[
            (
                "self_mask = causal_mask(input_ids.size(1), device=input_ids.device)",
                "self_mask = causal_mask(input_ids.size(1), device=input_ids.device) | True",
            )
        ],
    ),
    Mistake(
        "masks combined with or",
        says="the causal and padding masks are combined with | (or), which lets every position see the whole target; "
        "combine them with & (and).",
        edits=[
            (
                "self_mask = self_mask & padding_mask(attention_mask)",
                "self_mask = self_mask | padding_mask(attention_mask)",
            )
        ],
    ),
    Mistake(
        "target padding ignored",
        says="the target's padding mask is left out of the self-attention; combine causal_mask(T) & "
        "padding_mask(attention_mask).",
        edits=[("self_mask = self_mask & padding_mask(attention_mask)", "self_mask = self_mask")],
    ),
    Mistake(
        "cross-attention attends to the decoder itself",
        says="the cross-attention takes its keys and values from the decoder's own hidden states; they come from "
        "encoder_hidden_states.",
        edits=[("key_value_states=encoder_hidden_states", "key_value_states=hidden_states")],
    ),
    Mistake(
        "cross mask ignored",
        says="the cross-attention is given no mask (a layer does not pass cross_mask on to it, or the decoder does "
        "not pass it to its layers), so the decoder attends to the source's padding; pass "
        "padding_mask(encoder_attention_mask) to every layer as cross_mask, and cross_mask to the cross-attention.",
        edits=CROSS_MASK_DROPPED["by the layer"][""],
        variants=family(CROSS_MASK_DROPPED["by the layer"][""], CROSS_MASK_DROPPED),
    ),
    Mistake(
        "cross-attention before self-attention",
        says="the cross-attention comes before the self-attention; the order is masked self-attention, then "
        "cross-attention, then feed-forward.",
        edits=[
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
    Mistake(
        "cross-attention residual forgotten",
        says="the cross-attention sub-block has no residual; normalise x + cross_attention(x).",
        edits=[
            (
                "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                "self.cross_attention_norm(self.dropout(attended))",
            )
        ],
    ),
    Mistake(
        "output norm built without config.layer_norm_eps",
        says="a layer norm does not get config.layer_norm_eps (it keeps its default, or a number written in); pass "
        "eps=config.layer_norm_eps.",
        edits=[
            (
                "self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                "self.output_norm = LayerNorm(config.hidden_size)",
            )
        ],
    ),
    Mistake(
        "two layers hard-coded",
        says="the decoder has a fixed 2 layers; build config.num_hidden_layers of them.",
        edits=[("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
    ),
    Mistake(
        "cross-attention output not dropped out",
        says="the cross-attention's output is added to the residual without dropout; BERT applies self.dropout to it "
        "first: cross_attention_norm(x + dropout(cross_attention(x, memory))).",
        edits=[
            (
                "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                "self.cross_attention_norm(hidden_states + attended)",
            )
        ],
    ),
    Mistake(
        "encoder states detached",
        says="the encoder's hidden states are detached in the cross-attention, so no gradient reaches the encoder "
        "from the decoder; keep them in the graph.",
        edits=[("key_value_states=encoder_hidden_states", "key_value_states=encoder_hidden_states.detach()")],
    ),
)
