"""The catalog's mistakes in `multihead`."""

from autograder.engine.build.mistakes.mistake import entries, family

SDPA_CALL = "_, weights = scaled_dot_product_attention(q, k, v, mask)"
MHA_CONTEXT = "context = self.dropout(weights) @ v"
# Each projection split into heads as the reference splits it: viewed as (B, T, H, Dh), then transposed.
_SPLIT = {
    "queries": ("q = self.query(hidden_states)", "T"),
    "keys": ("k = self.key(source)", "S"),
    "values": ("v = self.value(source)", "S"),
}
# The head axis never moved: viewed as (B, H, T, Dh) at once, which keeps memory's order and so mixes positions
# into heads; or viewed as (B, T, H, Dh) and never transposed, which attends across heads.
HEADS_FIRST = {
    site: (
        f"{call}.view(B, {T}, self.num_heads, self.head_dim).transpose(1, 2)",
        f"{call}.view(B, self.num_heads, {T}, self.head_dim)",
    )
    for site, (call, T) in _SPLIT.items()
}
UNTRANSPOSED = {
    site: (
        f"{call}.view(B, {T}, self.num_heads, self.head_dim).transpose(1, 2)",
        f"{call}.view(B, {T}, self.num_heads, self.head_dim)",
    )
    for site, (call, T) in _SPLIT.items()
}


def _own_scores(scale, scores=""):
    """multihead computing its own scores instead of calling scaled_dot_product_attention, the scores passed
    through `scores` (a function's name) first."""
    return (
        SDPA_CALL,
        f"scores = {scores}(q @ k.transpose(-2, -1) * {scale})\n"
        "        weights = (scores if mask is None else scores.masked_fill(~mask, float('-inf'))).softmax(-1)",
    )


MISTAKES = entries(
    "multihead",
    (
        "heads split without transposing",
        [HEADS_FIRST["queries"]],
        [
            *family([HEADS_FIRST["queries"]], {site: {"": [edit]} for site, edit in HEADS_FIRST.items()}),
            ("every projection left (B, T, H, Dh)", list(UNTRANSPOSED.values())),
        ],
    ),
    (
        "heads merged without transposing back",
        [("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)")],
    ),
    (
        "output projection forgotten",
        [("return self.output(context), weights", "return context, weights")],
    ),
    (
        "key_value_states ignored",
        [("source = hidden_states if key_value_states is None else key_value_states", "source = hidden_states")],
    ),
    (
        "cross-attention queries from the source",
        [
            ("q = self.query(hidden_states).view(B, T,", "q = self.query(source).view(B, S,"),
            ("context.transpose(1, 2).reshape(B, T, D)", "context.transpose(1, 2).reshape(B, S, D)"),
        ],
    ),
    (
        "values from the key projection",
        [("v = self.value(source)", "v = self.key(source)")],
    ),
    (
        "mask not passed on",
        [(SDPA_CALL, "_, weights = scaled_dot_product_attention(q, k, v)")],
    ),
    (
        "weights averaged over the heads",
        [("return self.output(context), weights", "return self.output(context), weights.mean(dim=1)")],
    ),
    (
        "scaled by sqrt(D) instead of sqrt(Dh)",
        [_own_scores("D ** -0.5")],
    ),
    (
        "1/sqrt(Dh) kept as a float32 tensor",
        [
            ("from torch import nn", "import torch\nfrom torch import nn"),
            (
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)",
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)\n        self.scale = torch.tensor(self.head_dim ** -0.5)",
            ),
            _own_scores("self.scale"),
        ],
    ),
    (
        "head count hard-coded",
        [
            ("self.num_heads = config.num_attention_heads", "self.num_heads = 4"),
            (
                "self.head_dim = config.hidden_size // config.num_attention_heads",
                "self.head_dim = config.hidden_size // 4",
            ),
        ],
    ),
    (
        "head size hard-coded",
        [("self.head_dim = config.hidden_size // config.num_attention_heads", "self.head_dim = 8")],
    ),
    (
        "dropout missing on the attention probabilities",
        [(MHA_CONTEXT, "context = weights @ v")],
    ),
    (
        "dropout on the scores",
        [_own_scores("self.head_dim ** -0.5", "self.dropout"), (MHA_CONTEXT, "context = weights @ v")],
    ),
    (
        "dropout on the output",
        [
            (MHA_CONTEXT, "context = weights @ v"),
            ("return self.output(context), weights", "return self.dropout(self.output(context)), weights"),
        ],
    ),
    (
        "hidden dropout probability on the attention",
        [("nn.Dropout(config.attention_probs_dropout_prob)", "nn.Dropout(config.hidden_dropout_prob)")],
    ),
    (
        "keys detached",
        [("k = self.key(source).view(", "k = self.key(source).detach().view(")],
    ),
)
