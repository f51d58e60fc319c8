"""Diagnosis learns families, not instances: mistakes the catalog does not hold, each a member of a family it
names, are named by the family's sentence; and near misses, which belong to no family, are not.

The mistakes here were written after the catalog was frozen (its families: the heads split without moving the
head axis, positions counted from 1, a padding mask dropped by the stack or by the layer, a step left out of a
head), written as a student might write them and not copied from its edits: a reshape where the catalog has a
view, a helper, unflatten, an offset added after arange, a clamp, a mask set to None in another line. Some of them
are members whose numbers the catalog's variants reach; some are not (an axis moved, but the wrong one; the
decoder's self-mask dropped by the layer, where the catalog drops it at the stack), and those may go unnamed.

Recall, measured by grading each here in its own component (the hidden suites, in this process as
helpers.graded_here runs them) and by the public checks: before
the catalog had families (commit ea64444), 2 of the 16 were named by the hidden suites and 2 by the public
checks; with them, 14 and 14 (RECALL_FLOOR holds each family's count). The two not named are outside every
family's variants: the wrong axes swapped, and the decoder layer's own causal mask. Precision is held on every
one: a mistake is named by its family's sentence or not at all, and the near misses (NEAR) not at all.

The training component's families (issue 48) were measured the same way when its catalog was written: its 7
mistakes here (BOS padded on with F.pad, a warm-up under a min, the decay as the share left, the model's zero_grad)
are named 7 and 7 times; its near misses (the target rolled, the loss summed) not at all.
"""

import pytest
from support import mutations
from support.helpers import checked_names, graded_here, submission

from autograder.course import jupyter, public
from autograder.engine.authoring import mistakes
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

SPLIT_K = "k = self.key(source).view(B, S, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, S, Dh)"
SPLIT_V = "v = self.value(source).view(B, S, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, S, Dh)"
SPLIT_Q = "q = self.query(hidden_states).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)"
POSITIONS = "positions = torch.arange(input_ids.size(1), device=input_ids.device)  # (T,)"
TABLE_ROWS = "position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)"
LM_BODY = "return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))"
POOLED = "pooled = torch.tanh(self.pooler(hidden_states[:, 0]))  # (B, D)"
SHIFT = "torch.cat([bos, target[:, :-1]], dim=1)  # (B, T)"
WARM_UP = "        return peak * step / warmup_steps\n"
DECAY = "    return peak * (total_steps - step) / (total_steps - warmup_steps)\n"
ZERO_THEN_BACKWARD = "    optimizer.zero_grad()\n    loss.backward()\n"

# family: [(how it is written, edits of the family's component's file)]
NEW = {
    "multihead/heads-split-without-transposing": [
        (
            "keys and values reshaped to (B, H, S, Dh)",
            [
                (SPLIT_K, "k = self.key(source).reshape(B, self.num_heads, S, self.head_dim)"),
                (SPLIT_V, "v = self.value(source).reshape(B, self.num_heads, S, self.head_dim)"),
            ],
        ),
        (
            "a helper that views every projection as (B, H, -1, Dh)",
            [
                (
                    "    def forward(self, hidden_states, mask=None, key_value_states=None):",
                    "    def _heads(self, x):\n        return x.view(x.size(0), self.num_heads, -1, self.head_dim)\n\n"
                    "    def forward(self, hidden_states, mask=None, key_value_states=None):",
                ),
                (SPLIT_Q, "q = self._heads(self.query(hidden_states))"),
                (SPLIT_K, "k = self._heads(self.key(source))"),
                (SPLIT_V, "v = self._heads(self.value(source))"),
            ],
        ),
        (
            "unflattened into (B, T, H, Dh) and left there",
            [
                (SPLIT_Q, "q = self.query(hidden_states).unflatten(-1, (self.num_heads, self.head_dim))"),
                (SPLIT_K, "k = self.key(source).unflatten(-1, (self.num_heads, self.head_dim))"),
                (SPLIT_V, "v = self.value(source).unflatten(-1, (self.num_heads, self.head_dim))"),
            ],
        ),
        (
            "the last two axes swapped instead of the head axis moved",
            [
                (SPLIT_Q, SPLIT_Q.replace("transpose(1, 2)", "transpose(2, 3)")),
                (SPLIT_K, SPLIT_K.replace("transpose(1, 2)", "transpose(2, 3)")),
                (SPLIT_V, SPLIT_V.replace("transpose(1, 2)", "transpose(2, 3)")),
            ],
        ),
    ],
    "embeddings/positions-counted-from-1": [
        (
            "one added after arange",
            [(POSITIONS, "positions = torch.arange(input_ids.size(1), device=input_ids.device) + 1")],
        ),
        (
            "from 1, clamped to the last position",
            [
                (
                    POSITIONS,
                    "positions = torch.arange(1, input_ids.size(1) + 1, device=input_ids.device)"
                    ".clamp(max=self.position_embeddings.num_embeddings - 1)",
                )
            ],
        ),
        (
            "the table's rows shifted by one",
            [(TABLE_ROWS, "position = (torch.arange(max_len, dtype=torch.float64) + 1)[:, None]")],
        ),
        (
            "both, each its own way",
            [
                (POSITIONS, "positions = 1 + torch.arange(input_ids.size(1), device=input_ids.device)"),
                (TABLE_ROWS, "position = torch.arange(1, max_len + 1).double().unsqueeze(1)"),
            ],
        ),
    ],
    "encoder/padding-mask-not-passed-to-the-layers": [
        (
            "the mask never made",
            [
                (
                    "mask = None if attention_mask is None else padding_mask(attention_mask)  # (B, 1, 1, T)",
                    "mask = None",
                )
            ],
        ),
        (
            "the layer passes None to its attention",
            [
                (
                    "attended, _ = self.attention(hidden_states, mask)",
                    "attended, _ = self.attention(hidden_states, None)",
                )
            ],
        ),
    ],
    "decoder/cross-mask-ignored": [
        (
            "the cross mask never made",
            [
                (
                    "cross_mask = None if encoder_attention_mask is None else padding_mask(encoder_attention_mask)",
                    "cross_mask = None",
                )
            ],
        ),
        (
            "keyword arguments, the mask left out",
            [
                (
                    "attended, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)",
                    "attended, _ = self.cross_attention(hidden_states, key_value_states=encoder_hidden_states)",
                )
            ],
        ),
    ],
    "decoder/target-padding-ignored": [
        (
            "the layer remakes a causal mask and drops the one it is given",
            [
                (
                    "attended, _ = self.self_attention(hidden_states, self_mask)",
                    "attended, _ = self.self_attention(hidden_states, causal_mask(hidden_states.size(1)))",
                )
            ],
        ),
    ],
    "heads/a-step-left-out-of-the-lm-head": [
        (
            "step by step, the layer norm forgotten",
            [(LM_BODY, "h = self.dense(hidden_states)\n        h = F.gelu(h)\n        return self.decoder(h)")],
        ),
        (
            "the transform's first two steps forgotten",
            [(LM_BODY, "normalised = self.layer_norm(hidden_states)\n        return self.decoder(normalised)")],
        ),
    ],
    "heads/pooler-s-dense-layer-left-out": [
        ("tanh of the [CLS] state", [(POOLED, "pooled = hidden_states[:, 0].tanh()")]),
    ],
    "training/shift-keeps-the-last-token": [
        ("BOS padded on the left, nothing dropped", [(SHIFT, "F.pad(target, (1, 0), value=bos_token_id)")]),
        ("the target itself", [(SHIFT, "target")]),
    ],
    "training/warm-up-off-by-one-step": [
        (
            "steps counted from 0, under a min",
            [(WARM_UP, "        return peak * min(step - 1, warmup_steps) / warmup_steps\n")],
        ),
        (
            "the share of the warm-up done, a step late",
            [(WARM_UP, "        return peak * (step / (warmup_steps + 1))\n")],
        ),
    ],
    "training/decay-off-by-one-step": [
        (
            "the share of the decay left, counted a step late",
            [(DECAY, "    return peak * (1 - (step - warmup_steps - 1) / (total_steps - warmup_steps))\n")],
        ),
    ],
    "training/gradients-zeroed-after-backward": [
        (
            "the model's zero_grad after backward",
            [(ZERO_THEN_BACKWARD, "    loss.backward()\n    model.zero_grad()\n")],
        ),
        (
            "cleared just before the step",
            [
                (ZERO_THEN_BACKWARD, "    loss.backward()\n"),
                ("    optimizer.step()\n    return", "    optimizer.zero_grad()\n    optimizer.step()\n    return"),
            ],
        ),
    ],
}

# Near misses: wrong, and in no family the catalog names, so nothing may be said of them.
NEAR = [
    (
        "embeddings",
        "positions from 2, as RoBERTa counts them",
        [
            (
                POSITIONS,
                "positions = torch.arange(2, input_ids.size(1) + 2, device=input_ids.device) % input_ids.size(1)",
            )
        ],
    ),
    (
        "multihead",
        "head features interleaved: (B, T, Dh, H) moved to (B, H, T, Dh)",
        [
            (SPLIT_Q, "q = self.query(hidden_states).view(B, T, self.head_dim, self.num_heads).permute(0, 3, 1, 2)"),
            (SPLIT_K, "k = self.key(source).view(B, S, self.head_dim, self.num_heads).permute(0, 3, 1, 2)"),
            (SPLIT_V, "v = self.value(source).view(B, S, self.head_dim, self.num_heads).permute(0, 3, 1, 2)"),
        ],
    ),
    (
        "heads",
        "the LM head's dense layer applied twice",
        [(LM_BODY, "return self.decoder(self.layer_norm(F.gelu(self.dense(self.dense(hidden_states)))))")],
    ),
    ("training", "the target rolled: its last token where BOS goes", [(SHIFT, "torch.roll(target, 1, dims=1)")]),
    (
        "training",
        "the loss summed over the real tokens, not averaged",
        [("ignore_index=pad_token_id)\n    ### END", "ignore_index=pad_token_id, reduction='sum')\n    ### END")],
    ),
]

# (hidden suites, public checks): how many of each family's mistakes above are named by its sentence, as measured
# with the families (before them, at commit ea64444: 2 and 2 of the 16, both encoder and decoder masks that
# happened to return what the catalog's one instance returns). The decoder's floor of 0 still holds precision.
RECALL_FLOOR = {
    "multihead/heads-split-without-transposing": (3, 3),
    "embeddings/positions-counted-from-1": (4, 4),
    "encoder/padding-mask-not-passed-to-the-layers": (2, 2),
    "decoder/cross-mask-ignored": (2, 2),
    "decoder/target-padding-ignored": (0, 0),
    "heads/a-step-left-out-of-the-lm-head": (2, 2),
    "heads/pooler-s-dense-layer-left-out": (1, 1),
    "training/shift-keeps-the-last-token": (2, 2),
    "training/warm-up-off-by-one-step": (2, 2),
    "training/decay-off-by-one-step": (1, 1),
    "training/gradients-zeroed-after-backward": (2, 2),
}


def said(family):
    """The line the family's sentence makes, and the family's component."""
    mistake = mistakes.BY_ID[family]
    return LIKELY_MISTAKE + mistake.says, mistake.component


def hidden_diagnosis(component, edits):
    own = graded_here(component, edits)
    assert own.score < own.points, "kept full marks"
    return own.diagnosis


def public_diagnosis(tmp_path, component, edits):
    names, _ = jupyter.load_names(submission(tmp_path / "mutant", mutations.variant_edits(component, edits)))
    with pytest.raises(public.Failed) as failure:
        public.check(component, checked_names(component, names), quiet=True)
    return failure.value.likely


def named(diagnoses, line, written):
    """How many diagnoses are the family's line; any other line is a wrong name, which fails."""
    wrong = [(how, d) for how, d in zip(written, diagnoses) if d not in (None, line)]
    assert not wrong, f"named as another mistake: {wrong}"
    return sum(d == line for d in diagnoses)


@pytest.mark.parametrize("where", ["hidden", "public"])
@pytest.mark.parametrize("family", sorted(NEW))
def test_mistakes_of_a_family_written_after_the_freeze_are_named_by_it(tmp_path, family, where):
    line, component = said(family)
    written = [how for how, _ in NEW[family]]
    diagnoses = [
        hidden_diagnosis(component, edits)
        if where == "hidden"
        else public_diagnosis(tmp_path / str(n), component, edits)
        for n, (_, edits) in enumerate(NEW[family])
    ]
    floor = RECALL_FLOOR[family][where == "public"]
    assert named(diagnoses, line, written) >= floor, list(zip(written, diagnoses))


def test_at_least_twelve_mistakes_of_families_are_measured():
    assert sum(map(len, NEW.values())) >= 12


@pytest.mark.parametrize("component, written, edits", NEAR, ids=[f"{c}-{w}" for c, w, _ in NEAR])
def test_a_near_miss_outside_every_family_is_not_named(tmp_path, component, written, edits):
    assert hidden_diagnosis(component, edits) is None
    assert public_diagnosis(tmp_path / "public", component, edits) is None
