"""The catalog's mistakes in `feedforward`."""

from autograder.engine.build.mistakes.mistake import entries

FF_BODY = "return self.dropout(self.linear2(F.gelu(self.linear1(x))))"


MISTAKES = entries(
    "feedforward",
    (
        "tanh approximation of GELU",
        [("F.gelu(self.linear1(x))", 'F.gelu(self.linear1(x), approximate="tanh")')],
    ),
    (
        "sigmoid approximation of GELU",
        [
            ("F.gelu(self.linear1(x))", "(lambda h: h * torch.sigmoid(1.702 * h))(self.linear1(x))"),
            ("from torch import nn", "import torch\nfrom torch import nn"),
        ],
    ),
    (
        "ReLU instead of GELU",
        [("F.gelu(self.linear1(x))", "F.relu(self.linear1(x))")],
    ),
    (
        "no nonlinearity",
        [("F.gelu(self.linear1(x))", "self.linear1(x)")],
    ),
    (
        "GELU after linear2",
        [(FF_BODY, "return self.dropout(F.gelu(self.linear2(self.linear1(x))))")],
    ),
    (
        "residual inside the block",
        [(FF_BODY, "return x + self.dropout(self.linear2(F.gelu(self.linear1(x))))")],
    ),
    (
        "dropout active in eval mode",
        [(FF_BODY, "return F.dropout(self.linear2(F.gelu(self.linear1(x))), 0.1)")],
    ),
    (
        "GELU computed in float32",
        [("F.gelu(self.linear1(x))", "F.gelu(self.linear1(x).float()).to(x.dtype)")],
    ),
    (
        "intermediate size hard-coded",
        [
            ("nn.Linear(config.hidden_size, config.intermediate_size)", "nn.Linear(config.hidden_size, 64)"),
            ("nn.Linear(config.intermediate_size, config.hidden_size)", "nn.Linear(64, config.hidden_size)"),
        ],
    ),
    (
        "dropout between the two linears",
        [(FF_BODY, "return self.linear2(self.dropout(F.gelu(self.linear1(x))))")],
    ),
    (
        "dropout missing",
        [(FF_BODY, "return self.linear2(F.gelu(self.linear1(x)))")],
    ),
    (
        "first linear frozen",
        [
            (
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.linear1.requires_grad_(False)",
            )
        ],
    ),
)
