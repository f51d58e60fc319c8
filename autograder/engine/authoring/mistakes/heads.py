"""The catalog's mistakes in `heads`."""

import itertools

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

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
    Mistake(
        "softmax applied to the logits",
        says="the LM head returns probabilities; return the logits, with no softmax.",
        edits=[(LM_BODY, f"{LM_BODY}.softmax(-1)")],
    ),
    Mistake(
        "log-softmax applied to the logits",
        says="the LM head returns log-probabilities; return the logits, with no log_softmax.",
        edits=[(LM_BODY, f"{LM_BODY}.log_softmax(-1)")],
    ),
    Mistake(
        "LM head without its transform",
        says="the LM head applies only its decoder; BERT's head first transforms the hidden states: "
        "decoder(layer_norm(gelu(dense(h)))).",
        edits=[(LM_BODY, "return self.decoder(hidden_states)")],
    ),
    Mistake(
        "GELU missing from the LM head",
        says="the LM head has no GELU; apply it between dense and layer_norm.",
        edits=[("self.layer_norm(F.gelu(self.dense(hidden_states)))", "self.layer_norm(self.dense(hidden_states))")],
    ),
    Mistake(
        "layer norm before GELU in the LM head",
        says="the LM head normalises before the GELU; the order is dense, GELU, layer norm.",
        edits=[
            (
                "self.layer_norm(F.gelu(self.dense(hidden_states)))",
                "F.gelu(self.layer_norm(self.dense(hidden_states)))",
            )
        ],
    ),
    Mistake(
        "a step left out of the LM head",
        says="the LM head leaves out a step of its transform (dense, GELU or layer norm); BERT's head applies all "
        "three, in order: decoder(layer_norm(gelu(dense(h)))).",
        edits=dict(LM_LEFT_OUT)["layer norm"],
        variants=[member for member in LM_LEFT_OUT if member[0] != "layer norm"],
    ),
    Mistake(
        "pooler's dense layer left out",
        says="the pooler leaves out its dense layer, self.pooler; pooled = tanh(pooler(h[:, 0])), and the classifier "
        "reads dropout(pooled).",
        edits=dict(POOLER_LEFT_OUT)["dense"],
        variants=[member for member in POOLER_LEFT_OUT if member[0] != "dense"],
    ),
    Mistake(
        "classifier mean-pools instead of reading [CLS]",
        says="the classifier averages every position; BERT reads the first ([CLS]) position only: hidden_states[:, 0].",
        edits=[(POOLED, "torch.tanh(self.pooler(hidden_states.mean(dim=1)))")],
    ),
    Mistake(
        "classifier reads the last position",
        says="the classifier reads the last position; BERT reads the first ([CLS]) one: hidden_states[:, 0].",
        edits=[(POOLED, "torch.tanh(self.pooler(hidden_states[:, -1]))")],
    ),
    Mistake(
        "tanh missing from the pooler",
        says="the pooler has no tanh; pooled = tanh(pooler(h[:, 0])).",
        edits=[(POOLED, "self.pooler(hidden_states[:, 0])")],
    ),
    Mistake(
        "pooler's tanh in float32",
        says="the pooler's tanh runs in float32, so float64 inputs lose precision; keep the input's dtype (no "
        ".float()).",
        edits=[(POOLED, "torch.tanh(self.pooler(hidden_states[:, 0]).float()).to(hidden_states.dtype)")],
    ),
    Mistake(
        "LM head's layer norm built without config.layer_norm_eps",
        says="the LM head's layer norm does not get config.layer_norm_eps (it keeps its default, or a number written "
        "in); pass eps=config.layer_norm_eps.",
        edits=[("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
    ),
    Mistake(
        "three labels hard-coded",
        says="the classifier has a fixed 3 outputs; read their number from the config: config.num_labels.",
        edits=[("nn.Linear(config.hidden_size, config.num_labels)", "nn.Linear(config.hidden_size, 3)")],
    ),
    Mistake(
        "dropout after the classifier",
        says="dropout is applied to the logits, after the classifier; BERT applies it before: "
        "classifier(dropout(tanh(pooler(h[:, 0])))).",
        edits=[("return self.classifier(self.dropout(pooled))", "return self.dropout(self.classifier(pooled))")],
    ),
    Mistake(
        "classifier dropout missing",
        says="the classification head has no dropout; BERT applies one between the pooler and the classifier: "
        "classifier(dropout(tanh(pooler(h[:, 0])))).",
        edits=[("return self.classifier(self.dropout(pooled))", "return self.classifier(pooled)")],
    ),
)
