"""Test submissions made from the catalog of mistakes (autograder/engine/authoring/mistakes/), and mistakes outside it.

VARIANTS are cataloged mistakes written with additions that other components' files use: the mistake
must still lose points in its own component only (the isolation SPEC promises), and be named as the
mistake it is. OUTSIDE are mistakes the catalog does not hold: they must lose points, and the grader
must name no mistake for them, or one that they contain.
"""

import os
from collections import defaultdict

from autograder.engine.judge.diagnosis import trained
from support.helpers import catalog
from support.hint_evidence import EVIDENCE

# `make catalog` (CI runs it after make test) grades every member of the catalog; make test grades those that
# representatives() picks.
WHOLE_CATALOG = bool(os.environ.get("KIT_WHOLE_CATALOG"))
# The catalog's ids that a hint's evidence grades (support/hint_evidence.py): always graded.
HINTED = {graded for pair in EVIDENCE.values() for graded in pair}


def edits(mistake):
    """A catalog mistake's edits as (file's component id, old text, new text), for helpers.submission."""
    return catalog(mistake.id)


def representatives(members, case_set):
    """Of members [(component, entry id, family id, item)], the items whose grading make test runs: in each
    component, the members a hint's evidence grades, then each next member that shows something of the grading
    path none chosen before shows (named by its own entry, by its family's, or not at all; each kind of case
    evidence, in eval and in train mode: values, right, a load failure, dropout's pattern). Whether every member
    is named by its sentence is the diagnosis's (tests/unit/test_mutations.py), on evidence that make drift
    rebuilds from the members' code; `make catalog` grades them all."""
    if WHOLE_CATALOG:
        return [item for *_, item in members]
    chosen, shown = [], defaultdict(set)
    for hinted_first in (True, False):
        for component, entry_id, family_id, item in members:
            shows = _shows(case_set.evidence(component), entry_id, family_id)
            if (entry_id in HINTED) == hinted_first and (hinted_first or shows - shown[component]):
                chosen.append(item)
                shown[component] |= shows
    return [item for *_, item in members if item in chosen]


def _shows(evidence, entry_id, family_id):
    entry = evidence.entries.get(entry_id) or evidence.entries.get(family_id)
    naming = "own" if entry_id in evidence.entries else "family" if entry else "unnamed"
    cases = entry["evidence"].items() if entry else ()
    return {naming, *((found["kind"], case.endswith(trained(""))) for case, found in cases)}


def variant_edits(component, changes):
    return [change if len(change) == 3 else (component, *change) for change in changes]


# (the cataloged mistake it shows, how it is written, edits; an edit of another component's file names it)
VARIANTS = [
    (
        "multihead/heads-merged-without-transposing-back",
        "built by a from_config the layers use",
        [
            (
                "    def forward(self, hidden_states, mask=None, key_value_states=None):",
                "    @classmethod\n    def from_config(cls, config):\n        return cls(config)\n\n"
                "    def forward(self, hidden_states, mask=None, key_value_states=None):",
            ),
            ("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)"),
            (
                "encoder",
                "self.attention = MultiHeadAttention(config)",
                "self.attention = MultiHeadAttention.from_config(config)",
            ),
            (
                "decoder",
                "self.cross_attention = MultiHeadAttention(config)",
                "self.cross_attention = MultiHeadAttention.from_config(config)",
            ),
        ],
    ),
    (
        "attention/scores-not-scaled",
        "with a dropout argument multi-head attention passes",
        [
            (
                "def scaled_dot_product_attention(query, key, value, mask=None):",
                "def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):",
            ),
            (" / math.sqrt(query.size(-1))", ""),
            (
                "multihead",
                "_, weights = scaled_dot_product_attention(q, k, v, mask)",
                "_, weights = scaled_dot_product_attention(q, k, v, mask, dropout=self.dropout)",
            ),
        ],
    ),
    (
        "layernorm/unbiased-variance",
        "with a helper attribute the other parts read",
        [
            ("        self.eps = eps\n", "        self.eps = eps\n        self.width = hidden_size\n"),
            (".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)"),
            (
                "encoder",
                "        return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "        assert self.output_norm.width == hidden_states.size(-1)\n        return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
            ),
        ],
    ),
    (
        "attention/scores-not-scaled",
        "as an einsum, the scale forgotten",
        [
            (
                "scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))",
                "scores = torch.einsum('...td,...sd->...ts', query, key)",
            ),
        ],
    ),
    (
        "layernorm/unbiased-variance",
        "with torch.var's default",
        [
            ("var = (x - mean).pow(2).mean(dim=-1, keepdim=True)", "var = x.var(dim=-1, keepdim=True)"),
        ],
    ),
    (
        "feedforward/tanh-approximation-of-gelu",
        "the tanh formula written out",
        [
            (
                "F.gelu(self.linear1(x))",
                "(lambda h: 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3))))(self.linear1(x))",
            ),
            ("from torch import nn", "import math\n\nimport torch\nfrom torch import nn"),
        ],
    ),
]

# (component, mistake, edits): mistakes the catalog does not hold.
OUTSIDE = [
    # Issue 47: Python-float scales and a softmax run in float32 (as LLaMA-style code writes it) were told that
    # sqrt(Dh) is a float32 tensor; float32's rounding alone names no float32 entry of the catalog.
    (
        "attention",
        "softmax run in float32",
        [
            (
                "weights = torch.softmax(scores, dim=-1)",
                "weights = torch.softmax(scores.float(), dim=-1).type_as(scores)",
            )
        ],
    ),
    (
        "multihead",
        "own softmax run in float32",
        [
            (
                "_, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, S)",
                "scores = q @ k.transpose(-2, -1) / self.head_dim**0.5\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(~mask, float('-inf'))\n"
                "        weights = scores.float().softmax(-1).type_as(q)",
            )
        ],
    ),
    ("attention", "scores divided by 2", [(" / math.sqrt(query.size(-1))", " / 2")]),
    # Issue 47: every call ran on the default device, the one a CPU has, so the mask's values were all right.
    (
        "masking",
        "causal mask made on the default device",
        [("dtype=torch.bool, device=device).tril()", "dtype=torch.bool).tril()")],
    ),
    (
        "attention",
        "weights squared",
        [("return weights @ value, weights", "weights = weights ** 2\n    return weights @ value, weights")],
    ),
    (
        "layernorm",
        "eps of 1e-3 added to the standard deviation",
        [("torch.sqrt(var + self.eps)", "(torch.sqrt(var + self.eps) + 1e-3)")],
    ),
    ("feedforward", "GELU of twice the input", [("F.gelu(self.linear1(x))", "F.gelu(2 * self.linear1(x))")]),
    (
        "multihead",
        "output projection applied twice",
        [("return self.output(context), weights", "return self.output(self.output(context)), weights")],
    ),
    (
        "embeddings",
        "token embeddings doubled",
        [("self.token_embeddings(input_ids)  # (B, T, D)", "2 * self.token_embeddings(input_ids)")],
    ),
    (
        "encoder",
        "every layer applied twice",
        [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(layer(hidden_states, mask), mask)")],
    ),
    (
        "decoder",
        "feed-forward residual forgotten",
        [
            (
                "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                "return self.output_norm(self.feed_forward(hidden_states))",
            )
        ],
    ),
    (
        "heads",
        "pooler applied twice",
        [("torch.tanh(self.pooler(hidden_states[:, 0]))", "torch.tanh(self.pooler(self.pooler(hidden_states[:, 0])))")],
    ),
    (
        "seq2seq",
        "at most max_new_tokens - 1 steps",
        [("for _ in range(max_new_tokens):", "for _ in range(max_new_tokens - 1):")],
    ),
]

# Mistakes that show only when the model trains, outside the catalog, in groups of components: each group's
# submission must lose points in its components' train-mode tests only, and nowhere else. The first two cut
# or freeze a gradient in every component that has one; the third misplaces dropout.
TRAINING_OUTSIDE = [
    [
        (
            "attention",
            "scores computed under torch.no_grad()",
            [
                (
                    "    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., T, S)",
                    "    with torch.no_grad():\n        scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))",
                )
            ],
        ),
        ("multihead", "values detached", [("v = self.value(source).view(", "v = self.value(source).detach().view(")]),
        (
            "embeddings",
            "token-type embeddings frozen",
            [
                (
                    "self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)",
                    "self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size).requires_grad_(False)",
                )
            ],
        ),
        (
            "decoder",
            "self-attention output not dropped out",
            [
                (
                    "hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))",
                    "hidden_states = self.self_attention_norm(hidden_states + attended)",
                )
            ],
        ),
        (
            "seq2seq",
            "logits from a detached decoder output",
            [("return self.lm_head(hidden_states)", "return self.lm_head(hidden_states.detach())")],
        ),
    ],
    [
        (
            "layernorm",
            "bias frozen",
            [
                (
                    "self.bias = nn.Parameter(torch.zeros(hidden_size))",
                    "self.bias = nn.Parameter(torch.zeros(hidden_size), requires_grad=False)",
                )
            ],
        ),
        (
            "feedforward",
            "dropout applied twice",
            [
                (
                    "return self.dropout(self.linear2(F.gelu(self.linear1(x))))",
                    "return self.dropout(self.dropout(self.linear2(F.gelu(self.linear1(x)))))",
                )
            ],
        ),
        (
            "encoder",
            "the output norm's input detached",
            [
                (
                    "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "return self.output_norm((hidden_states + self.feed_forward(hidden_states)).detach())",
                )
            ],
        ),
        (
            "heads",
            "the pooler under torch.no_grad()",
            [
                (
                    "        pooled = torch.tanh(self.pooler(hidden_states[:, 0]))  # (B, D)",
                    "        with torch.no_grad():\n            pooled = torch.tanh(self.pooler(hidden_states[:, 0]))",
                )
            ],
        ),
    ],
    [
        (
            "multihead",
            "dropout on the values instead of the probabilities",
            [("context = self.dropout(weights) @ v", "context = weights @ self.dropout(v)")],
        ),
        (
            "embeddings",
            "dropout applied twice",
            [("return self.dropout(self.layer_norm(x))", "return self.dropout(self.dropout(self.layer_norm(x)))")],
        ),
        (
            "encoder",
            "dropout on the feed-forward block's input",
            [
                (
                    "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "return self.output_norm(hidden_states + self.feed_forward(self.dropout(hidden_states)))",
                )
            ],
        ),
        (
            "heads",
            "dropout on the pooler's input too",
            [
                (
                    "torch.tanh(self.pooler(hidden_states[:, 0]))",
                    "torch.tanh(self.pooler(self.dropout(hidden_states[:, 0])))",
                )
            ],
        ),
    ],
]

# Dropout written every correct way but the reference's: with F.dropout, torch.dropout and
# nn.functional.dropout, and the submodule's p. Full marks, and no mistake named.
TRAINING_VARIANTS = [
    (
        "feedforward",
        "return self.dropout(self.linear2(F.gelu(self.linear1(x))))",
        "return F.dropout(self.linear2(F.gelu(self.linear1(x))), self.dropout.p, self.training)",
    ),
    (
        "multihead",
        "context = self.dropout(weights) @ v",
        "context = nn.functional.dropout(weights, p=self.dropout.p, training=self.training) @ v",
    ),
    (
        "embeddings",
        "return self.dropout(self.layer_norm(x))",
        "return torch.dropout(self.layer_norm(x), self.dropout.p, self.training)",
    ),
    (
        "encoder",
        "hidden_states = self.attention_norm(hidden_states + self.dropout(attended))",
        "attended = nn.functional.dropout(attended, self.dropout.p, training=self.training)\n"
        "        hidden_states = self.attention_norm(hidden_states + attended)",
    ),
    (
        "heads",
        "return self.classifier(self.dropout(pooled))",
        "return self.classifier(F.dropout(pooled, p=self.dropout.p, training=self.training))",
    ),
]
