"""The catalog's mistakes in `feedforward`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

FF_BODY = "return self.dropout(self.linear2(F.gelu(self.linear1(x))))"


MISTAKES = entries(
    "feedforward",
    Mistake(
        "tanh approximation of GELU",
        says="GELU is the tanh approximation; BERT uses the exact (erf) GELU: F.gelu(x) without approximate='tanh'.",
        edits=[("F.gelu(self.linear1(x))", 'F.gelu(self.linear1(x), approximate="tanh")')],
    ),
    Mistake(
        "sigmoid approximation of GELU",
        says="GELU is approximated as x * sigmoid(1.702 x); use the exact GELU, F.gelu(x).",
        edits=[
            ("F.gelu(self.linear1(x))", "(lambda h: h * torch.sigmoid(1.702 * h))(self.linear1(x))"),
            ("from torch import nn", "import torch\nfrom torch import nn"),
        ],
    ),
    Mistake(
        "ReLU instead of GELU",
        says="the nonlinearity is ReLU; BERT uses the exact GELU, F.gelu.",
        edits=[("F.gelu(self.linear1(x))", "F.relu(self.linear1(x))")],
    ),
    Mistake(
        "no nonlinearity",
        says="there is no nonlinearity between the layers, so the block is one linear map; apply F.gelu to linear1's "
        "output.",
        edits=[("F.gelu(self.linear1(x))", "self.linear1(x)")],
    ),
    Mistake(
        "GELU after linear2",
        says="GELU is applied after linear2; it goes between the layers: linear2(gelu(linear1(x))).",
        edits=[(FF_BODY, "return self.dropout(F.gelu(self.linear2(self.linear1(x))))")],
    ),
    Mistake(
        "residual inside the block",
        says="the block adds its input x to its output; the residual belongs to the layer that uses the block, so "
        "return linear2(gelu(linear1(x))) alone.",
        edits=[(FF_BODY, "return x + self.dropout(self.linear2(F.gelu(self.linear1(x))))")],
    ),
    Mistake(
        "dropout active in eval mode",
        says="dropout is applied in eval mode too (F.dropout(x, p) drops whatever the mode); use the nn.Dropout "
        "module, self.dropout, which eval() turns off.",
        edits=[(FF_BODY, "return F.dropout(self.linear2(F.gelu(self.linear1(x))), 0.1)")],
    ),
    Mistake(
        "GELU computed in float32",
        says="GELU runs in float32, so float64 inputs lose precision; keep the input's dtype (no .float()).",
        edits=[("F.gelu(self.linear1(x))", "F.gelu(self.linear1(x).float()).to(x.dtype)")],
    ),
    Mistake(
        "intermediate size hard-coded",
        says="the inner size is a fixed number; read it from the config: config.intermediate_size.",
        edits=[
            ("nn.Linear(config.hidden_size, config.intermediate_size)", "nn.Linear(config.hidden_size, 64)"),
            ("nn.Linear(config.intermediate_size, config.hidden_size)", "nn.Linear(64, config.hidden_size)"),
        ],
    ),
    Mistake(
        "dropout between the two linears",
        says="dropout sits between the two linears; BERT applies it after the second: "
        "dropout(linear2(gelu(linear1(x)))).",
        edits=[(FF_BODY, "return self.linear2(self.dropout(F.gelu(self.linear1(x))))")],
    ),
    Mistake(
        "dropout missing",
        says="the block has no dropout; BERT ends it with one: dropout(linear2(gelu(linear1(x)))).",
        edits=[(FF_BODY, "return self.linear2(F.gelu(self.linear1(x)))")],
    ),
    Mistake(
        "first linear frozen",
        says="linear1's weight and bias do not require grad, so training never changes them; leave every parameter "
        "trainable (no requires_grad_(False)).",
        edits=[
            (
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.linear1.requires_grad_(False)",
            )
        ],
    ),
)
