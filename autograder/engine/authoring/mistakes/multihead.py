"""The catalog's mistakes in `multihead`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries, family

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
    Mistake(
        "heads split without transposing",
        says="the heads are split by a view or reshape alone, which never moves the head axis to dim 1, so positions "
        "and heads are mixed; use view(B, T, H, Dh).transpose(1, 2).",
        edits=[HEADS_FIRST["queries"]],
        variants=[
            *family([HEADS_FIRST["queries"]], {site: {"": [edit]} for site, edit in HEADS_FIRST.items()}),
            ("every projection left (B, T, H, Dh)", list(UNTRANSPOSED.values())),
        ],
    ),
    Mistake(
        "heads merged without transposing back",
        says="the heads are merged with a plain reshape(B, T, D) of (B, H, T, Dh), which mixes positions; "
        "transpose(1, 2) first, then reshape.",
        edits=[("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)")],
    ),
    Mistake(
        "output projection forgotten",
        says="the merged heads are returned without the output projection; apply self.output to them.",
        edits=[("return self.output(context), weights", "return context, weights")],
    ),
    Mistake(
        "key_value_states ignored",
        says="key_value_states is ignored, so cross-attention attends to hidden_states itself; take keys and values "
        "from key_value_states when it is given.",
        edits=[("source = hidden_states if key_value_states is None else key_value_states", "source = hidden_states")],
    ),
    Mistake(
        "cross-attention queries from the source",
        says="in cross-attention the queries come from key_value_states; queries come from hidden_states, keys and "
        "values from key_value_states.",
        edits=[
            ("q = self.query(hidden_states).view(B, T,", "q = self.query(source).view(B, S,"),
            ("context.transpose(1, 2).reshape(B, T, D)", "context.transpose(1, 2).reshape(B, S, D)"),
        ],
    ),
    Mistake(
        "values from the key projection",
        says="the values are made with the key projection; use self.value.",
        edits=[("v = self.value(source)", "v = self.key(source)")],
    ),
    Mistake(
        "mask not passed on",
        says="the mask is not passed to the attention; give it to scaled_dot_product_attention.",
        edits=[(SDPA_CALL, "_, weights = scaled_dot_product_attention(q, k, v)")],
    ),
    Mistake(
        "weights averaged over the heads",
        says="the weights are averaged over the heads, as nn.MultiheadAttention does by default; return every head's "
        "weights, (B, H, T, S).",
        edits=[("return self.output(context), weights", "return self.output(context), weights.mean(dim=1)")],
    ),
    Mistake(
        "scaled by sqrt(D) instead of sqrt(Dh)",
        says="the scores are divided by sqrt(D), the model's width; each head divides by the square root of its own "
        "size, Dh = D / H.",
        edits=[_own_scores("D ** -0.5")],
    ),
    Mistake(
        "1/sqrt(Dh) kept as a float32 tensor",
        says="1/sqrt(Dh) is kept as a float32 tensor, so float64 inputs are scaled by a rounded number; use a Python "
        "float.",
        edits=[
            ("from torch import nn", "import torch\nfrom torch import nn"),
            (
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)",
                "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)\n        self.scale = torch.tensor(self.head_dim ** -0.5)",
            ),
            _own_scores("self.scale"),
        ],
    ),
    Mistake(
        "head count hard-coded",
        says="the number of heads is a fixed number; read it from the config: config.num_attention_heads.",
        edits=[
            ("self.num_heads = config.num_attention_heads", "self.num_heads = 4"),
            (
                "self.head_dim = config.hidden_size // config.num_attention_heads",
                "self.head_dim = config.hidden_size // 4",
            ),
        ],
    ),
    Mistake(
        "head size hard-coded",
        says="the head size is a fixed number; compute it from the config: Dh = hidden_size // num_attention_heads.",
        edits=[("self.head_dim = config.hidden_size // config.num_attention_heads", "self.head_dim = 8")],
    ),
    Mistake(
        "dropout missing on the attention probabilities",
        says="dropout is missing on the attention probabilities; BERT drops them out after the softmax, before they "
        "weight the values.",
        edits=[(MHA_CONTEXT, "context = weights @ v")],
    ),
    Mistake(
        "dropout on the scores",
        says="dropout is applied to the scores, before the softmax; BERT applies it to the probabilities, after the "
        "softmax, before they weight the values.",
        edits=[_own_scores("self.head_dim ** -0.5", "self.dropout"), (MHA_CONTEXT, "context = weights @ v")],
    ),
    Mistake(
        "dropout on the output",
        says="dropout is applied to the block's output; BERT drops out the attention probabilities before they weight "
        "the values, and the output's own dropout belongs to the layer that adds the residual.",
        edits=[
            (MHA_CONTEXT, "context = weights @ v"),
            ("return self.output(context), weights", "return self.dropout(self.output(context)), weights"),
        ],
    ),
    Mistake(
        "hidden dropout probability on the attention",
        says="the attention's dropout uses hidden_dropout_prob; BERT drops out attention probabilities with "
        "config.attention_probs_dropout_prob.",
        edits=[("nn.Dropout(config.attention_probs_dropout_prob)", "nn.Dropout(config.hidden_dropout_prob)")],
    ),
    Mistake(
        "keys detached",
        says="the keys are detached (.detach()), so no gradient reaches the key projection and it never learns; keep "
        "them in the graph.",
        edits=[("k = self.key(source).view(", "k = self.key(source).detach().view(")],
    ),
)
