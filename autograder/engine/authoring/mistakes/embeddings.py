"""The catalog's mistakes in `embeddings`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries, family

# Positions counted from 1 where they are made: the embeddings' (the last wrapped to 0, or running past T - 1,
# which raises only at max_position_embeddings), and the sinusoidal table's rows.
FROM_1 = {
    "in the embeddings": {
        "wrapped to 0": [
            (
                "torch.arange(input_ids.size(1), device=input_ids.device)",
                "torch.arange(1, input_ids.size(1) + 1, device=input_ids.device) % input_ids.size(1)",
            )
        ],
        "up to T": [
            (
                "torch.arange(input_ids.size(1), device=input_ids.device)",
                "torch.arange(1, input_ids.size(1) + 1, device=input_ids.device)",
            )
        ],
    },
    "in the sinusoidal table": {
        "": [
            (
                "position = torch.arange(max_len, dtype=torch.float64)",
                "position = torch.arange(1, max_len + 1, dtype=torch.float64)",
            )
        ]
    },
}

MISTAKES = entries(
    "embeddings",
    Mistake(
        "positions counted from 1",
        says="positions are counted from 1; they run 0, 1, ..., T - 1 (torch.arange(T)).",
        edits=FROM_1["in the embeddings"]["wrapped to 0"],
        variants=family(FROM_1["in the embeddings"]["wrapped to 0"], FROM_1),
    ),
    Mistake(
        "position embeddings forgotten",
        says="the position embeddings are not added, so the model cannot tell positions apart; add "
        "position_embeddings of the positions 0..T-1.",
        edits=[("+ self.position_embeddings(positions)  # (T, D), broadcast over B", "+ 0")],
    ),
    Mistake(
        "token types forgotten",
        says="the token-type embeddings are not added; add token_type_embeddings(token_type_ids), with type 0 when "
        "none are given.",
        edits=[("+ self.token_type_embeddings(token_type_ids)  # (B, T, D)", "+ 0")],
    ),
    Mistake(
        "layer norm forgotten",
        says="the sum is returned without the layer norm; apply self.layer_norm to token + position + token type.",
        edits=[("return self.dropout(self.layer_norm(x))", "return self.dropout(x)")],
    ),
    Mistake(
        "sin and cos swapped",
        says="the sinusoidal table has cos in the even columns and sin in the odd ones; PE[p, 2i] = sin, PE[p, 2i+1] "
        "= cos.",
        edits=[
            ("table[:, 0::2] = torch.sin(angles)", "table[:, 0::2] = torch.cos(angles)"),
            (
                "table[:, 1::2] = torch.cos(angles[:, : d_model // 2])",
                "table[:, 1::2] = torch.sin(angles[:, : d_model // 2])",
            ),
        ],
    ),
    Mistake(
        "sin and cos in halves",
        says="the sinusoidal table puts all the sines first and all the cosines after them; interleave them: sines in "
        "the even columns (0::2), cosines in the odd ones (1::2).",
        edits=[
            ("table[:, 0::2] = torch.sin(angles)", "table[:, : (d_model + 1) // 2] = torch.sin(angles)"),
            (
                "table[:, 1::2] = torch.cos(angles[:, : d_model // 2])",
                "table[:, (d_model + 1) // 2 :] = torch.cos(angles[:, : d_model // 2])",
            ),
        ],
    ),
    Mistake(
        "exponent uses i instead of 2i",
        says="the frequencies use i where the formula has 2i: the angle is p / 10000^(2i / d_model) for columns 2i "
        "and 2i + 1.",
        edits=[("* two_i / d_model", "* (two_i / 2) / d_model")],
    ),
    Mistake(
        "layer norm built without config.layer_norm_eps",
        says="the layer norm does not get config.layer_norm_eps (it keeps its default, or a number written in); pass "
        "eps=config.layer_norm_eps.",
        edits=[("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
    ),
    Mistake(
        "two token types hard-coded",
        says="the token-type table has a fixed 2 rows; read its size from the config: config.type_vocab_size.",
        edits=[("nn.Embedding(config.type_vocab_size, config.hidden_size)", "nn.Embedding(2, config.hidden_size)")],
    ),
    Mistake(
        "dropout before the layer norm",
        says="dropout comes before the layer norm; BERT applies it after: dropout(layer_norm(token + position + token "
        "type)).",
        edits=[("return self.dropout(self.layer_norm(x))", "return self.layer_norm(self.dropout(x))")],
    ),
    Mistake(
        "dropout missing",
        says="the embeddings have no dropout; BERT applies one after the layer norm: dropout(layer_norm(token + "
        "position + token type)).",
        edits=[("return self.dropout(self.layer_norm(x))", "return self.layer_norm(x)")],
    ),
    Mistake(
        "position embeddings frozen",
        says="the position embeddings do not require grad, so they never learn; BERT's positions are learned: leave "
        "position_embeddings trainable.",
        edits=[
            (
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.position_embeddings.weight.requires_grad_(False)",
            )
        ],
    ),
)
