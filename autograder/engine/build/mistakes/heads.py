"""The catalog's mistakes in `heads`."""

import itertools

from autograder.engine.build.mistakes.mistake import entries

LM_BODY = "return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))"
POOLED = "torch.tanh(self.pooler(hidden_states[:, 0]))"


def left_out(steps, inner, line, cataloged):
    """The family of a head with steps left out: (name, edits) for each non-empty set of its steps (innermost
    first, each a format applied to what comes before), written line by line, but the sets that cataloged
    entries of their own tell with a sharper sentence."""
    members = []
    for size in range(1, len(steps) + 1):
        for gone in itertools.combinations(steps, size):
            if set(gone) in cataloged:
                continue
            body = inner
            for name, step in steps.items():
                body = body if name in gone else step.format(body)
            members.append((" and ".join(gone), [(line.format(inner=_compose(steps, inner)), line.format(inner=body))]))
    return members


def _compose(steps, inner):
    for step in steps.values():
        inner = step.format(inner)
    return inner


# The LM head's transform, dense, GELU, layer norm; without GELU or without all three is cataloged apart.
LM_LEFT_OUT = left_out(
    {"dense": "self.dense({})", "GELU": "F.gelu({})", "layer norm": "self.layer_norm({})"},
    "hidden_states",
    "return self.decoder({inner})",
    [{"GELU"}, {"dense", "GELU", "layer norm"}],
)
# The pooler, dense then tanh; without tanh is cataloged apart.
POOLER_LEFT_OUT = left_out(
    {"dense": "self.pooler({})", "tanh": "torch.tanh({})"}, "hidden_states[:, 0]", "{inner}", [{"tanh"}]
)


MISTAKES = entries(
    "heads",
    (
        "softmax applied to the logits",
        [(LM_BODY, f"{LM_BODY}.softmax(-1)")],
    ),
    (
        "log-softmax applied to the logits",
        [(LM_BODY, f"{LM_BODY}.log_softmax(-1)")],
    ),
    (
        "LM head without its transform",
        [(LM_BODY, "return self.decoder(hidden_states)")],
    ),
    (
        "GELU missing from the LM head",
        [("self.layer_norm(F.gelu(self.dense(hidden_states)))", "self.layer_norm(self.dense(hidden_states))")],
    ),
    (
        "layer norm before GELU in the LM head",
        [
            (
                "self.layer_norm(F.gelu(self.dense(hidden_states)))",
                "F.gelu(self.layer_norm(self.dense(hidden_states)))",
            )
        ],
    ),
    (
        "a step left out of the LM head",
        dict(LM_LEFT_OUT)["layer norm"],
        [member for member in LM_LEFT_OUT if member[0] != "layer norm"],
    ),
    (
        "pooler's dense layer left out",
        dict(POOLER_LEFT_OUT)["dense"],
        [member for member in POOLER_LEFT_OUT if member[0] != "dense"],
    ),
    (
        "classifier mean-pools instead of reading [CLS]",
        [(POOLED, "torch.tanh(self.pooler(hidden_states.mean(dim=1)))")],
    ),
    (
        "classifier reads the last position",
        [(POOLED, "torch.tanh(self.pooler(hidden_states[:, -1]))")],
    ),
    (
        "tanh missing from the pooler",
        [(POOLED, "self.pooler(hidden_states[:, 0])")],
    ),
    (
        "pooler's tanh in float32",
        [(POOLED, "torch.tanh(self.pooler(hidden_states[:, 0]).float()).to(hidden_states.dtype)")],
    ),
    (
        "LM head's layer norm built without config.layer_norm_eps",
        [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
    ),
    (
        "three labels hard-coded",
        [("nn.Linear(config.hidden_size, config.num_labels)", "nn.Linear(config.hidden_size, 3)")],
    ),
    (
        "dropout after the classifier",
        [("return self.classifier(self.dropout(pooled))", "return self.dropout(self.classifier(pooled))")],
    ),
    (
        "classifier dropout missing",
        [("return self.classifier(self.dropout(pooled))", "return self.classifier(pooled)")],
    ),
)
