"""The catalog's mistakes in `embeddings`."""

from autograder.engine.build.mistakes.mistake import entries, family

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
    (
        "positions counted from 1",
        FROM_1["in the embeddings"]["wrapped to 0"],
        family(FROM_1["in the embeddings"]["wrapped to 0"], FROM_1),
    ),
    (
        "position embeddings forgotten",
        [("+ self.position_embeddings(positions)  # (T, D), broadcast over B", "+ 0")],
    ),
    (
        "token types forgotten",
        [("+ self.token_type_embeddings(token_type_ids)  # (B, T, D)", "+ 0")],
    ),
    (
        "layer norm forgotten",
        [("return self.dropout(self.layer_norm(x))", "return self.dropout(x)")],
    ),
    (
        "sin and cos swapped",
        [
            ("table[:, 0::2] = torch.sin(angles)", "table[:, 0::2] = torch.cos(angles)"),
            (
                "table[:, 1::2] = torch.cos(angles[:, : d_model // 2])",
                "table[:, 1::2] = torch.sin(angles[:, : d_model // 2])",
            ),
        ],
    ),
    (
        "sin and cos in halves",
        [
            ("table[:, 0::2] = torch.sin(angles)", "table[:, : (d_model + 1) // 2] = torch.sin(angles)"),
            (
                "table[:, 1::2] = torch.cos(angles[:, : d_model // 2])",
                "table[:, (d_model + 1) // 2 :] = torch.cos(angles[:, : d_model // 2])",
            ),
        ],
    ),
    (
        "exponent uses i instead of 2i",
        [("* two_i / d_model", "* (two_i / 2) / d_model")],
    ),
    (
        "layer norm built without config.layer_norm_eps",
        [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
    ),
    (
        "two token types hard-coded",
        [("nn.Embedding(config.type_vocab_size, config.hidden_size)", "nn.Embedding(2, config.hidden_size)")],
    ),
    (
        "dropout before the layer norm",
        [("return self.dropout(self.layer_norm(x))", "return self.layer_norm(self.dropout(x))")],
    ),
    (
        "dropout missing",
        [("return self.dropout(self.layer_norm(x))", "return self.layer_norm(x)")],
    ),
    (
        "position embeddings frozen",
        [
            (
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.position_embeddings.weight.requires_grad_(False)",
            )
        ],
    ),
)
