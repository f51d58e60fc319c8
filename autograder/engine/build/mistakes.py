"""The catalog of common mistakes: each a small edit of the reference, with a sentence for the student.

One source for three things: the fixture builder computes each mistake's outputs (and those of every pair
of mistakes in one component) on the hidden cases and on the public checks' (build/evidence.py); the grader
and the public checks name a mistake whose outputs a student's match (diagnosis.py); and the kit's tests grade every mistake to measure that it loses points and is
named (tests/test_mutations.py).

An edit is (old text, new text) in the mistake's own component's file; each old text occurs there exactly
once. `says` is what the student reads after "Likely mistake: ": what they did, then what to do instead.
The catalog is the instructors': it quotes the reference, so it never ships to students (bundle.py).
"""

import re
from dataclasses import dataclass

from autograder.engine.contract import spec


@dataclass(frozen=True)
class Mistake:
    component: str
    name: str
    says: str
    edits: tuple

    @property
    def id(self):
        return f"{self.component}/{re.sub(r'[^a-z0-9]+', '-', self.name.lower()).strip('-')}"

    @property
    def in_float32(self):
        """A mistake that computes in float32 (each says so in its name): its outputs' digits beyond float32's
        are the rounding of the CPU that ran it."""
        return "float32" in self.name


def apply(source, edits):
    """source with the edits made, or ValueError naming an old text that does not occur exactly once."""
    for old, new in edits:
        if source.count(old) != 1:
            raise ValueError(f"{old!r} occurs {source.count(old)} times")
        source = source.replace(old, new)
    return source


def _catalog(component, *entries):
    return [Mistake(component, name, says, tuple(edits)) for name, says, edits in entries]


SCALE = " / math.sqrt(query.size(-1))"
SDPA_CALL = "_, weights = scaled_dot_product_attention(q, k, v, mask)"
MHA_CONTEXT = "context = self.dropout(weights) @ v"
FF_BODY = "return self.dropout(self.linear2(F.gelu(self.linear1(x))))"
ENC_ATTN = "self.attention_norm(hidden_states + self.dropout(attended))"
DEC_CROSS = "attended, _ = self.cross_attention(hidden_states, cross_mask, key_value_states=encoder_hidden_states)"
LM_BODY = "return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))"
POOLED = "torch.tanh(self.pooler(hidden_states[:, 0]))"


def _own_scores(scale, scores=""):
    """multihead computing its own scores instead of calling scaled_dot_product_attention, the scores passed
    through `scores` (a function's name) first."""
    return (
        SDPA_CALL,
        f"scores = {scores}(q @ k.transpose(-2, -1) * {scale})\n"
        "        weights = (scores if mask is None else scores.masked_fill(~mask, float('-inf'))).softmax(-1)",
    )


CATALOG = [
    *_catalog(
        "attention",
        (
            "scores not scaled",
            "the scores query @ keyᵀ are not divided by sqrt(Dh); divide them by "
            "math.sqrt(query.size(-1)) before the softmax.",
            [(SCALE, "")],
        ),
        (
            "scaled by Dh instead of sqrt(Dh)",
            "the scores are divided by Dh; divide them by its square root, math.sqrt(query.size(-1)).",
            [("math.sqrt(query.size(-1))", "query.size(-1)")],
        ),
        (
            "scores multiplied by sqrt(Dh)",
            "the scores are multiplied by sqrt(Dh); divide them by it.",
            [(f"{SCALE}  #", " * math.sqrt(query.size(-1))  #")],
        ),
        (
            "softmax over the query axis",
            "the softmax runs over the queries (dim=-2), so columns sum to 1; run it "
            "over the keys, the last dimension (dim=-1), so that each query's weights sum to 1.",
            [("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")],
        ),
        (
            "mask inverted",
            "the mask is used the wrong way round: True means the query MAY attend; fill the scores "
            "where the mask is False (~mask) with -inf.",
            [("masked_fill(~mask,", "masked_fill(mask,")],
        ),
        (
            "mask ignored",
            "the mask is never applied; fill the scores where the mask is False with -inf before the softmax.",
            [("if mask is not None:", "if False:")],
        ),
        (
            "blocked scores set to 0",
            "blocked scores are set to 0 (a 0 fill, or scores multiplied by the mask), and "
            "exp(0) still gives them weight; fill them with float('-inf') so that their weight is exactly 0.",
            [('float("-inf")', "0.0")],
        ),
        (
            "mask applied after the softmax",
            "the mask zeroes weights after the softmax, so each row no longer sums "
            "to 1; fill the scores with -inf before the softmax instead.",
            [
                ('scores = scores.masked_fill(~mask, float("-inf"))', "pass"),
                (
                    "weights = torch.softmax(scores, dim=-1)",
                    "weights = torch.softmax(scores, dim=-1)\n"
                    "    if mask is not None:\n        weights = weights.masked_fill(~mask, 0.0)",
                ),
            ],
        ),
        (
            "scores returned instead of weights",
            "the second value returned is the scores; return the weights, softmax(scores), as the second value.",
            [("return weights @ value, weights", "return weights @ value, scores")],
        ),
        (
            "output from the scores",
            "the output multiplies the scores by the values; multiply the weights, softmax(scores), by value.",
            [("return weights @ value, weights", "return scores @ value, weights")],
        ),
        (
            "scale rounded to float32",
            "sqrt(Dh) is a float32 tensor, so float64 inputs are scaled by a rounded "
            "number; use a Python float (math.sqrt) or a tensor made with dtype=query.dtype.",
            [("/ math.sqrt(query.size(-1))", "/ torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32)")],
        ),
        (
            "weights detached",
            "the weights are detached from the graph (.detach(), or computed under torch.no_grad()), so "
            "no gradient reaches the query or the key and attention cannot learn where to look; keep softmax(scores) in "
            "the graph.",
            [("weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-1).detach()")],
        ),
    ),
    *_catalog(
        "masking",
        (
            "causal mask without its diagonal",
            "the causal mask hides the diagonal, so no position sees itself; "
            "keep it: True at [i, j] where j <= i (tril(), not tril(-1)).",
            [(".tril()", ".tril(-1)")],
        ),
        (
            "causal mask upper-triangular",
            "the causal mask is upper-triangular, so each position sees the future; "
            "make it lower-triangular (tril): True where j <= i.",
            [(".tril()", ".triu()")],
        ),
        (
            "causal mask as 0 and -inf",
            "the causal mask is PyTorch's additive float mask (0 and -inf); the kit's "
            "masks are boolean, True where attending is allowed.",
            [
                (
                    "torch.ones(size, size, dtype=torch.bool, device=device).tril()",
                    "torch.zeros(size, size, device=device).masked_fill(torch.ones(size, size, dtype=torch.bool, device=device).triu(1), float('-inf'))",
                )
            ],
        ),
        (
            "padding mask inverted",
            "the padding mask is True at the padding; it must be True at the real tokens (where attention_mask is 1).",
            [("attention_mask.bool()[:, None, None, :]", "(attention_mask == 0)[:, None, None, :]")],
        ),
        (
            "padding mask shaped (B, 1, S, 1)",
            "the padding mask is shaped (B, 1, S, 1), so it masks queries, not "
            "keys; shape it (B, 1, 1, S) with [:, None, None, :].",
            [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()[:, None, :, None]")],
        ),
        (
            "padding mask left (B, S)",
            "the padding mask keeps its (B, S) shape, which does not broadcast over heads "
            "and queries; reshape it to (B, 1, 1, S).",
            [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()")],
        ),
        (
            "padding mask left as integers",
            "the padding mask keeps the 0/1 integers; convert it with .bool(), "
            "since ~ on an integer tensor is not a logical not.",
            [("attention_mask.bool()[:, None, None, :]", "attention_mask[:, None, None, :]")],
        ),
    ),
    *_catalog(
        "layernorm",
        (
            "unbiased variance",
            "the variance divides by D - 1 (unbiased); layer norm divides by D: use "
            ".mean() of the squared deviations, or var(unbiased=False).",
            [(".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)")],
        ),
        (
            "eps outside the square root",
            "eps is added after the square root; add it inside: (x - mean) / sqrt(var + eps).",
            [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
        ),
        (
            "divided by the variance",
            "x - mean is divided by the variance; divide it by the standard deviation, sqrt(var + eps).",
            [("torch.sqrt(var + self.eps)", "(var + self.eps)")],
        ),
        (
            "mean not subtracted",
            "x is divided by the standard deviation without subtracting the mean first; normalise x - mean.",
            [("self.weight * (x - mean) /", "self.weight * x /")],
        ),
        (
            "weight and bias never applied",
            "weight and bias are never applied; return weight * normalised + bias.",
            [
                (
                    "self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
                    "(x - mean) / torch.sqrt(var + self.eps)",
                )
            ],
        ),
        (
            "eps hard-coded",
            "eps is a fixed number; use self.eps, the eps the layer norm was built with.",
            [("var + self.eps", "var + 1e-12")],
        ),
        (
            "variance computed in float32",
            "the variance is computed in float32, so float64 inputs lose precision; "
            "keep every step in the input's dtype (no .float()).",
            [
                (
                    "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)",
                    "var = (x - mean).float().pow(2).mean(dim=-1, keepdim=True).to(x.dtype)",
                )
            ],
        ),
        (
            "input detached",
            "the input is detached (.detach(), or torch.no_grad()), so no gradient reaches the layer "
            "norm's input, nor anything before it; keep x in the graph.",
            [
                (
                    "        mean = x.mean(dim=-1, keepdim=True)",
                    "        x = x.detach()\n        mean = x.mean(dim=-1, keepdim=True)",
                )
            ],
        ),
        (
            "mean and variance detached",
            "the mean and the variance are detached, as if they were constants; they depend "
            "on x, and the gradient must flow through them too: no .detach() on either.",
            [
                ("mean = x.mean(dim=-1, keepdim=True)  #", "mean = x.mean(dim=-1, keepdim=True).detach()  #"),
                (
                    "var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  #",
                    "var = (x - mean).pow(2).mean(dim=-1, keepdim=True).detach()  #",
                ),
            ],
        ),
        (
            "weight frozen",
            "weight does not require grad (requires_grad=False), so training never changes it; leave every "
            "parameter trainable.",
            [("nn.Parameter(torch.ones(hidden_size))", "nn.Parameter(torch.ones(hidden_size), requires_grad=False)")],
        ),
    ),
    *_catalog(
        "feedforward",
        (
            "tanh approximation of GELU",
            "GELU is the tanh approximation; BERT uses the exact (erf) GELU: F.gelu(x) without approximate='tanh'.",
            [("F.gelu(self.linear1(x))", 'F.gelu(self.linear1(x), approximate="tanh")')],
        ),
        (
            "sigmoid approximation of GELU",
            "GELU is approximated as x * sigmoid(1.702 x); use the exact GELU, F.gelu(x).",
            [
                ("F.gelu(self.linear1(x))", "(lambda h: h * torch.sigmoid(1.702 * h))(self.linear1(x))"),
                ("from torch import nn", "import torch\nfrom torch import nn"),
            ],
        ),
        (
            "ReLU instead of GELU",
            "the nonlinearity is ReLU; BERT uses the exact GELU, F.gelu.",
            [("F.gelu(self.linear1(x))", "F.relu(self.linear1(x))")],
        ),
        (
            "no nonlinearity",
            "there is no nonlinearity between the layers, so the block is one linear map; apply "
            "F.gelu to linear1's output.",
            [("F.gelu(self.linear1(x))", "self.linear1(x)")],
        ),
        (
            "GELU after linear2",
            "GELU is applied after linear2; it goes between the layers: linear2(gelu(linear1(x))).",
            [(FF_BODY, "return self.dropout(F.gelu(self.linear2(self.linear1(x))))")],
        ),
        (
            "residual inside the block",
            "the block adds its input x to its output; the residual belongs to the "
            "layer that uses the block, so return linear2(gelu(linear1(x))) alone.",
            [(FF_BODY, "return x + self.dropout(self.linear2(F.gelu(self.linear1(x))))")],
        ),
        (
            "dropout active in eval mode",
            "dropout is applied in eval mode too (F.dropout(x, p) drops whatever the "
            "mode); use the nn.Dropout module, self.dropout, which eval() turns off.",
            [(FF_BODY, "return F.dropout(self.linear2(F.gelu(self.linear1(x))), 0.1)")],
        ),
        (
            "GELU computed in float32",
            "GELU runs in float32, so float64 inputs lose precision; keep the input's dtype (no .float()).",
            [("F.gelu(self.linear1(x))", "F.gelu(self.linear1(x).float()).to(x.dtype)")],
        ),
        (
            "intermediate size hard-coded",
            "the inner size is a fixed number; read it from the config: config.intermediate_size.",
            [
                ("nn.Linear(config.hidden_size, config.intermediate_size)", "nn.Linear(config.hidden_size, 64)"),
                ("nn.Linear(config.intermediate_size, config.hidden_size)", "nn.Linear(64, config.hidden_size)"),
            ],
        ),
        (
            "dropout between the two linears",
            "dropout sits between the two linears; BERT applies it after the second: "
            "dropout(linear2(gelu(linear1(x)))).",
            [(FF_BODY, "return self.linear2(self.dropout(F.gelu(self.linear1(x))))")],
        ),
        (
            "dropout missing",
            "the block has no dropout; BERT ends it with one: dropout(linear2(gelu(linear1(x)))).",
            [(FF_BODY, "return self.linear2(F.gelu(self.linear1(x)))")],
        ),
        (
            "first linear frozen",
            "linear1's weight and bias do not require grad, so training never changes them; leave "
            "every parameter trainable (no requires_grad_(False)).",
            [
                (
                    "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                    "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.linear1.requires_grad_(False)",
                )
            ],
        ),
    ),
    *_catalog(
        "multihead",
        (
            "heads split without transposing",
            "the heads are split with a plain view(B, H, T, Dh), which mixes "
            "positions into heads; use view(B, T, H, Dh).transpose(1, 2).",
            [
                (
                    "q = self.query(hidden_states).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)",
                    "q = self.query(hidden_states).view(B, self.num_heads, T, self.head_dim)",
                )
            ],
        ),
        (
            "heads merged without transposing back",
            "the heads are merged with a plain reshape(B, T, D) of "
            "(B, H, T, Dh), which mixes positions; transpose(1, 2) first, then reshape.",
            [("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)")],
        ),
        (
            "output projection forgotten",
            "the merged heads are returned without the output projection; apply self.output to them.",
            [("return self.output(context), weights", "return context, weights")],
        ),
        (
            "key_value_states ignored",
            "key_value_states is ignored, so cross-attention attends to hidden_states "
            "itself; take keys and values from key_value_states when it is given.",
            [("source = hidden_states if key_value_states is None else key_value_states", "source = hidden_states")],
        ),
        (
            "cross-attention queries from the source",
            "in cross-attention the queries come from key_value_states; "
            "queries come from hidden_states, keys and values from key_value_states.",
            [
                ("q = self.query(hidden_states).view(B, T,", "q = self.query(source).view(B, S,"),
                ("context.transpose(1, 2).reshape(B, T, D)", "context.transpose(1, 2).reshape(B, S, D)"),
            ],
        ),
        (
            "values from the key projection",
            "the values are made with the key projection; use self.value.",
            [("v = self.value(source)", "v = self.key(source)")],
        ),
        (
            "mask not passed on",
            "the mask is not passed to the attention; give it to scaled_dot_product_attention.",
            [(SDPA_CALL, "_, weights = scaled_dot_product_attention(q, k, v)")],
        ),
        (
            "weights averaged over the heads",
            "the weights are averaged over the heads, as nn.MultiheadAttention "
            "does by default; return every head's weights, (B, H, T, S).",
            [("return self.output(context), weights", "return self.output(context), weights.mean(dim=1)")],
        ),
        (
            "scaled by sqrt(D) instead of sqrt(Dh)",
            "the scores are divided by sqrt(D), the model's width; each head "
            "divides by the square root of its own size, Dh = D / H.",
            [_own_scores("D ** -0.5")],
        ),
        (
            "1/sqrt(Dh) kept as a float32 tensor",
            "1/sqrt(Dh) is kept as a float32 tensor, so float64 inputs are "
            "scaled by a rounded number; use a Python float.",
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
            "the number of heads is a fixed number; read it from the config: config.num_attention_heads.",
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
            "the head size is a fixed number; compute it from the config: Dh = hidden_size // num_attention_heads.",
            [("self.head_dim = config.hidden_size // config.num_attention_heads", "self.head_dim = 8")],
        ),
        (
            "dropout missing on the attention probabilities",
            "dropout is missing on the attention probabilities; BERT drops "
            "them out after the softmax, before they weight the values.",
            [(MHA_CONTEXT, "context = weights @ v")],
        ),
        (
            "dropout on the scores",
            "dropout is applied to the scores, before the softmax; BERT applies it to the "
            "probabilities, after the softmax, before they weight the values.",
            [_own_scores("self.head_dim ** -0.5", "self.dropout"), (MHA_CONTEXT, "context = weights @ v")],
        ),
        (
            "dropout on the output",
            "dropout is applied to the block's output; BERT drops out the attention probabilities "
            "before they weight the values, and the output's own dropout belongs to the layer that adds the residual.",
            [
                (MHA_CONTEXT, "context = weights @ v"),
                ("return self.output(context), weights", "return self.dropout(self.output(context)), weights"),
            ],
        ),
        (
            "hidden dropout probability on the attention",
            "the attention's dropout uses hidden_dropout_prob; BERT drops out "
            "attention probabilities with config.attention_probs_dropout_prob.",
            [("nn.Dropout(config.attention_probs_dropout_prob)", "nn.Dropout(config.hidden_dropout_prob)")],
        ),
        (
            "keys detached",
            "the keys are detached (.detach()), so no gradient reaches the key projection and it never "
            "learns; keep them in the graph.",
            [("k = self.key(source).view(", "k = self.key(source).detach().view(")],
        ),
    ),
    *_catalog(
        "embeddings",
        (
            "positions counted from 1",
            "positions are counted from 1; they run 0, 1, ..., T - 1 (torch.arange(T)).",
            [
                (
                    "torch.arange(input_ids.size(1), device=input_ids.device)",
                    "torch.arange(1, input_ids.size(1) + 1, device=input_ids.device) % input_ids.size(1)",
                )
            ],
        ),
        (
            "position embeddings forgotten",
            "the position embeddings are not added, so the model cannot tell "
            "positions apart; add position_embeddings of the positions 0..T-1.",
            [("+ self.position_embeddings(positions)  # (T, D), broadcast over B", "+ 0")],
        ),
        (
            "token types forgotten",
            "the token-type embeddings are not added; add "
            "token_type_embeddings(token_type_ids), with type 0 when none are given.",
            [("+ self.token_type_embeddings(token_type_ids)  # (B, T, D)", "+ 0")],
        ),
        (
            "layer norm forgotten",
            "the sum is returned without the layer norm; apply self.layer_norm to token + position + token type.",
            [("return self.dropout(self.layer_norm(x))", "return self.dropout(x)")],
        ),
        (
            "sin and cos swapped",
            "the sinusoidal table has cos in the even columns and sin in the odd ones; "
            "PE[p, 2i] = sin, PE[p, 2i+1] = cos.",
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
            "the sinusoidal table puts all the sines first and all the cosines after "
            "them; interleave them: sines in the even columns (0::2), cosines in the odd ones (1::2).",
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
            "the frequencies use i where the formula has 2i: the angle is "
            "p / 10000^(2i / d_model) for columns 2i and 2i + 1.",
            [("* two_i / d_model", "* (two_i / 2) / d_model")],
        ),
        (
            "layer norm built without config.layer_norm_eps",
            "the layer norm does not get config.layer_norm_eps (it keeps "
            "its default, or a number written in); pass eps=config.layer_norm_eps.",
            [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
        ),
        (
            "two token types hard-coded",
            "the token-type table has a fixed 2 rows; read its size from the config: config.type_vocab_size.",
            [("nn.Embedding(config.type_vocab_size, config.hidden_size)", "nn.Embedding(2, config.hidden_size)")],
        ),
        (
            "dropout before the layer norm",
            "dropout comes before the layer norm; BERT applies it after: "
            "dropout(layer_norm(token + position + token type)).",
            [("return self.dropout(self.layer_norm(x))", "return self.layer_norm(self.dropout(x))")],
        ),
        (
            "dropout missing",
            "the embeddings have no dropout; BERT applies one after the layer norm: "
            "dropout(layer_norm(token + position + token type)).",
            [("return self.dropout(self.layer_norm(x))", "return self.layer_norm(x)")],
        ),
        (
            "position embeddings frozen",
            "the position embeddings do not require grad, so they never learn; BERT's "
            "positions are learned: leave position_embeddings trainable.",
            [
                (
                    "self.dropout = nn.Dropout(config.hidden_dropout_prob)",
                    "self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.position_embeddings.weight.requires_grad_(False)",
                )
            ],
        ),
    ),
    *_catalog(
        "encoder",
        (
            "pre-LN instead of post-LN",
            "the layer norms come before the sub-blocks (pre-LN); BERT is post-LN: x = norm(x + sub_block(x)).",
            [
                (
                    "attended, _ = self.attention(hidden_states, mask)",
                    "attended, _ = self.attention(self.attention_norm(hidden_states), mask)",
                ),
                (f"hidden_states = {ENC_ATTN}", "hidden_states = hidden_states + self.dropout(attended)"),
                (
                    "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "return hidden_states + self.feed_forward(self.output_norm(hidden_states))",
                ),
            ],
        ),
        (
            "residual added after the norm",
            "the residual is added after the layer norm, x + norm(sub_block(x)); "
            "add it inside: norm(x + sub_block(x)).",
            [(ENC_ATTN, "hidden_states + self.attention_norm(self.dropout(attended))")],
        ),
        (
            "attention residual forgotten",
            "the attention sub-block has no residual; normalise x + attention(x), not attention(x) alone.",
            [(ENC_ATTN, "self.attention_norm(self.dropout(attended))")],
        ),
        (
            "feed-forward residual forgotten",
            "the feed-forward sub-block has no residual; normalise x + feed_forward(x).",
            [
                (
                    "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "self.output_norm(self.feed_forward(hidden_states))",
                )
            ],
        ),
        (
            "one norm for both sub-blocks",
            "attention_norm is used after both sub-blocks; the feed-forward sub-block has its own, output_norm.",
            [
                (
                    "return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "return self.attention_norm(hidden_states + self.feed_forward(hidden_states))",
                )
            ],
        ),
        (
            "padding mask not passed to the layers",
            "the padding mask is not given to the layers, so real tokens "
            "attend to padding; pass padding_mask(attention_mask) to every layer.",
            [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")],
        ),
        (
            "token types dropped",
            "token_type_ids are not passed to the embeddings; pass them on.",
            [("self.embeddings(input_ids, token_type_ids)", "self.embeddings(input_ids)")],
        ),
        (
            "residual summed in float32",
            "the residual is summed in float32, so float64 inputs lose precision; "
            "keep the input's dtype (no .float()).",
            [
                (
                    ENC_ATTN,
                    "self.attention_norm((hidden_states.float() + self.dropout(attended).float()).to(hidden_states.dtype))",
                )
            ],
        ),
        (
            "layer norm built without config.layer_norm_eps",
            "a layer norm does not get config.layer_norm_eps (it keeps "
            "its default, or a number written in); pass eps=config.layer_norm_eps.",
            [
                (
                    "self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                    "self.attention_norm = LayerNorm(config.hidden_size)",
                )
            ],
        ),
        (
            "two layers hard-coded",
            "the encoder has a fixed 2 layers; build config.num_hidden_layers of them.",
            [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
        ),
        (
            "attention output not dropped out",
            "the attention's output is added to the residual without dropout; BERT "
            "applies self.dropout to it first: attention_norm(x + dropout(attention(x))).",
            [(ENC_ATTN, "self.attention_norm(hidden_states + attended)")],
        ),
        (
            "dropout on the residual sum",
            "dropout is applied to the residual sum; BERT applies it to the attention's "
            "output alone, before the sum: attention_norm(x + dropout(attention(x))).",
            [(ENC_ATTN, "self.attention_norm(self.dropout(hidden_states + attended))")],
        ),
        (
            "feed-forward output dropped out twice",
            "the feed-forward's output goes through dropout again; FeedForward "
            "already ends in dropout, so the layer adds none: output_norm(x + feed_forward(x)).",
            [
                (
                    "self.output_norm(hidden_states + self.feed_forward(hidden_states))",
                    "self.output_norm(hidden_states + self.dropout(self.feed_forward(hidden_states)))",
                )
            ],
        ),
        (
            "layers cut from each other",
            "each layer's input is detached, so no gradient reaches the layers below the last "
            "one, nor the embeddings; pass hidden_states on as it is.",
            [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states.detach(), mask)")],
        ),
    ),
    *_catalog(
        "decoder",
        (
            "no causal mask",
            "the self-attention has no causal mask, so each position sees later ones; start from causal_mask(T).",
            [
                (
                    "self_mask = causal_mask(input_ids.size(1), device=input_ids.device)",
                    "self_mask = causal_mask(input_ids.size(1), device=input_ids.device) | True",
                )
            ],
        ),
        (
            "masks combined with or",
            "the causal and padding masks are combined with | (or), which lets every "
            "position see the whole target; combine them with & (and).",
            [
                (
                    "self_mask = self_mask & padding_mask(attention_mask)",
                    "self_mask = self_mask | padding_mask(attention_mask)",
                )
            ],
        ),
        (
            "target padding ignored",
            "the target's padding mask is left out of the self-attention; combine "
            "causal_mask(T) & padding_mask(attention_mask).",
            [("self_mask = self_mask & padding_mask(attention_mask)", "self_mask = self_mask")],
        ),
        (
            "cross-attention attends to the decoder itself",
            "the cross-attention takes its keys and values from the "
            "decoder's own hidden states; they come from encoder_hidden_states.",
            [("key_value_states=encoder_hidden_states", "key_value_states=hidden_states")],
        ),
        (
            "cross mask ignored",
            "the cross-attention is given no mask, so the decoder attends to the source's padding; pass cross_mask.",
            [("self.cross_attention(hidden_states, cross_mask,", "self.cross_attention(hidden_states, None,")],
        ),
        (
            "cross-attention before self-attention",
            "the cross-attention comes before the self-attention; the order "
            "is masked self-attention, then cross-attention, then feed-forward.",
            [
                (
                    "        attended, _ = self.self_attention(hidden_states, self_mask)\n"
                    "        hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))\n"
                    f"        {DEC_CROSS}\n"
                    "        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(attended))\n",
                    f"        {DEC_CROSS}\n"
                    "        hidden_states = self.cross_attention_norm(hidden_states + self.dropout(attended))\n"
                    "        attended, _ = self.self_attention(hidden_states, self_mask)\n"
                    "        hidden_states = self.self_attention_norm(hidden_states + self.dropout(attended))\n",
                )
            ],
        ),
        (
            "cross-attention residual forgotten",
            "the cross-attention sub-block has no residual; normalise x + cross_attention(x).",
            [
                (
                    "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                    "self.cross_attention_norm(self.dropout(attended))",
                )
            ],
        ),
        (
            "output norm built without config.layer_norm_eps",
            "a layer norm does not get config.layer_norm_eps (it keeps "
            "its default, or a number written in); pass eps=config.layer_norm_eps.",
            [
                (
                    "self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)",
                    "self.output_norm = LayerNorm(config.hidden_size)",
                )
            ],
        ),
        (
            "two layers hard-coded",
            "the decoder has a fixed 2 layers; build config.num_hidden_layers of them.",
            [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")],
        ),
        (
            "cross-attention output not dropped out",
            "the cross-attention's output is added to the residual without "
            "dropout; BERT applies self.dropout to it first: cross_attention_norm(x + dropout(cross_attention(x, memory))).",
            [
                (
                    "self.cross_attention_norm(hidden_states + self.dropout(attended))",
                    "self.cross_attention_norm(hidden_states + attended)",
                )
            ],
        ),
        (
            "encoder states detached",
            "the encoder's hidden states are detached in the cross-attention, so no gradient "
            "reaches the encoder from the decoder; keep them in the graph.",
            [("key_value_states=encoder_hidden_states", "key_value_states=encoder_hidden_states.detach()")],
        ),
    ),
    *_catalog(
        "heads",
        (
            "softmax applied to the logits",
            "the LM head returns probabilities; return the logits, with no softmax.",
            [(LM_BODY, f"{LM_BODY}.softmax(-1)")],
        ),
        (
            "log-softmax applied to the logits",
            "the LM head returns log-probabilities; return the logits, with no log_softmax.",
            [(LM_BODY, f"{LM_BODY}.log_softmax(-1)")],
        ),
        (
            "LM head without its transform",
            "the LM head applies only its decoder; BERT's head first transforms "
            "the hidden states: decoder(layer_norm(gelu(dense(h)))).",
            [(LM_BODY, "return self.decoder(hidden_states)")],
        ),
        (
            "GELU missing from the LM head",
            "the LM head has no GELU; apply it between dense and layer_norm.",
            [("self.layer_norm(F.gelu(self.dense(hidden_states)))", "self.layer_norm(self.dense(hidden_states))")],
        ),
        (
            "layer norm before GELU in the LM head",
            "the LM head normalises before the GELU; the order is dense, GELU, layer norm.",
            [
                (
                    "self.layer_norm(F.gelu(self.dense(hidden_states)))",
                    "F.gelu(self.layer_norm(self.dense(hidden_states)))",
                )
            ],
        ),
        (
            "classifier mean-pools instead of reading [CLS]",
            "the classifier averages every position; BERT reads the first ([CLS]) position only: hidden_states[:, 0].",
            [(POOLED, "torch.tanh(self.pooler(hidden_states.mean(dim=1)))")],
        ),
        (
            "classifier reads the last position",
            "the classifier reads the last position; BERT reads the first ([CLS]) one: hidden_states[:, 0].",
            [(POOLED, "torch.tanh(self.pooler(hidden_states[:, -1]))")],
        ),
        (
            "tanh missing from the pooler",
            "the pooler has no tanh; pooled = tanh(pooler(h[:, 0])).",
            [(POOLED, "self.pooler(hidden_states[:, 0])")],
        ),
        (
            "pooler's tanh in float32",
            "the pooler's tanh runs in float32, so float64 inputs lose precision; keep "
            "the input's dtype (no .float()).",
            [(POOLED, "torch.tanh(self.pooler(hidden_states[:, 0]).float()).to(hidden_states.dtype)")],
        ),
        (
            "LM head's layer norm built without config.layer_norm_eps",
            "the LM head's layer norm does not get "
            "config.layer_norm_eps (it keeps its default, or a number written in); pass eps=config.layer_norm_eps.",
            [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")],
        ),
        (
            "three labels hard-coded",
            "the classifier has a fixed 3 outputs; read their number from the config: config.num_labels.",
            [("nn.Linear(config.hidden_size, config.num_labels)", "nn.Linear(config.hidden_size, 3)")],
        ),
        (
            "dropout after the classifier",
            "dropout is applied to the logits, after the classifier; BERT applies it "
            "before: classifier(dropout(tanh(pooler(h[:, 0])))).",
            [("return self.classifier(self.dropout(pooled))", "return self.dropout(self.classifier(pooled))")],
        ),
        (
            "classifier dropout missing",
            "the classification head has no dropout; BERT applies one between the pooler and "
            "the classifier: classifier(dropout(tanh(pooler(h[:, 0])))).",
            [("return self.classifier(self.dropout(pooled))", "return self.classifier(pooled)")],
        ),
    ),
    *_catalog(
        "seq2seq",
        (
            "source padding not passed to cross-attention",
            "the decoder is not given the source's attention_mask, "
            "so it attends to the source's padding; pass attention_mask as encoder_attention_mask.",
            [
                (
                    "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                    "self.decoder(decoder_input_ids, memory, decoder_attention_mask)",
                )
            ],
        ),
        (
            "target padding not passed to the decoder",
            "the decoder is not given decoder_attention_mask; pass it as the decoder's attention_mask.",
            [
                (
                    "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                    "self.decoder(decoder_input_ids, memory, None, attention_mask)",
                )
            ],
        ),
        (
            "finished rows not padded",
            "a row goes on generating after its EOS; from then on append pad_token_id to it.",
            [("next_token = next_token.masked_fill(finished, pad_token_id)", "next_token = next_token")],
        ),
        (
            "decoding never stops early",
            "decoding always runs max_new_tokens steps; stop as soon as every row has emitted EOS.",
            [("        if finished.all():\n            break\n", "")],
        ),
        (
            "EOS ignored",
            "EOS is never noticed: rows are neither padded nor stopped; mark a row finished once it "
            "emits eos_token_id, pad it from then on, and stop when every row has finished.",
            [("finished |= next_token == eos_token_id", "pass")],
        ),
        (
            "next token read from the first position",
            "the next token is read from the first position's logits; "
            "read it from the last position, hidden_states[:, -1].",
            [("hidden_states[:, -1]", "hidden_states[:, 0]")],
        ),
        (
            "BOS left out of the result",
            "the result leaves out the BOS token it started from; return bos, then the generated tokens.",
            [("    return tokens\n", "    return tokens[:, 1:]\n")],
        ),
        (
            "encoder output detached",
            "the encoder's output is detached in the model's forward, so no gradient reaches the "
            "encoder and only the decoder would learn; keep memory in the graph.",
            [
                (
                    "memory = self.encoder(input_ids, attention_mask)  # (B, S, D)\n        hidden_states",
                    "memory = self.encoder(input_ids, attention_mask).detach()\n        hidden_states",
                )
            ],
        ),
    ),
]

BY_ID = {mistake.id: mistake for mistake in CATALOG}


def of(component):
    return [mistake for mistake in CATALOG if mistake.component == component]


def _check():
    ids = [mistake.id for mistake in CATALOG]
    if len(ids) != len(set(ids)):
        raise ValueError("two mistakes share an id")
    unknown = {mistake.component for mistake in CATALOG} - set(spec.BY_ID)
    if unknown:
        raise ValueError(f"mistakes of unknown components: {sorted(unknown)}")


_check()
