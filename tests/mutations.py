"""The mutation catalog: common student mistakes, each a small edit of the reference.

Every mutant must lose points in its own component and keep full marks everywhere else (the isolation
SPEC promises). Each entry: (component id, mistake, [(old text, new text), ...]); an edit of another
component's file names it: (file's component id, old text, new text).
"""


def edits(component, changes):
    """The entry's changes as (file's component id, old text, new text), for helpers.submission."""
    return [change if len(change) == 3 else (component, *change) for change in changes]


MUTATIONS = [
    # attention
    ("attention", "scores not scaled", [(" / math.sqrt(query.size(-1))", "")]),
    ("attention", "scaled by Dh instead of sqrt(Dh)", [("math.sqrt(query.size(-1))", "query.size(-1)")]),
    ("attention", "softmax over the query axis", [("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")]),
    ("attention", "mask inverted", [("masked_fill(~mask,", "masked_fill(mask,")]),
    ("attention", "mask ignored", [("if mask is not None:", "if False:")]),
    ("attention", "scores returned instead of weights", [("return weights @ value, weights", "return weights @ value, scores")]),
    # masking
    ("masking", "causal mask without its diagonal", [(".tril()", ".tril(-1)")]),
    ("masking", "causal mask upper-triangular", [(".tril()", ".triu()")]),
    ("masking", "padding mask inverted", [("attention_mask.bool()[:, None, None, :]", "(attention_mask == 0)[:, None, None, :]")]),
    ("masking", "padding mask shaped (B, 1, S, 1)", [("attention_mask.bool()[:, None, None, :]", "attention_mask.bool()[:, None, :, None]")]),
    # layernorm
    ("layernorm", "unbiased variance", [(".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)")]),
    ("layernorm", "eps outside the square root", [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")]),
    ("layernorm", "weight and bias never applied", [("self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias", "(x - mean) / torch.sqrt(var + self.eps)")]),
    ("layernorm", "eps hard-coded", [("var + self.eps", "var + 1e-12")]),
    # multihead
    ("multihead", "heads split without transposing", [("q = self.query(hidden_states).view(B, T, self.num_heads, self.head_dim).transpose(1, 2)", "q = self.query(hidden_states).view(B, self.num_heads, T, self.head_dim)")]),
    ("multihead", "output projection forgotten", [("return self.output(context), weights", "return context, weights")]),
    ("multihead", "cross-attention keys from the queries' side", [("k = self.key(source)", "k = self.key(hidden_states)")]),
    ("multihead", "heads merged without transposing back", [("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)")]),
    ("multihead", "values from the key projection", [("v = self.value(source)", "v = self.key(source)")]),
    # feedforward
    ("feedforward", "tanh approximation of GELU", [("F.gelu(self.linear1(x))", 'F.gelu(self.linear1(x), approximate="tanh")')]),
    ("feedforward", "ReLU instead of GELU", [("F.gelu(self.linear1(x))", "F.relu(self.linear1(x))")]),
    ("feedforward", "functional dropout also in eval mode", [("return self.dropout(self.linear2(F.gelu(self.linear1(x))))", "return F.dropout(self.linear2(F.gelu(self.linear1(x))), 0.1)")]),
    # embeddings
    ("embeddings", "positions counted from 1", [("torch.arange(input_ids.size(1), device=input_ids.device)", "torch.arange(1, input_ids.size(1) + 1, device=input_ids.device) % input_ids.size(1)")]),
    ("embeddings", "token types forgotten", [("+ self.token_type_embeddings(token_type_ids)  # (B, T, D)", "+ 0")]),
    ("embeddings", "layer norm forgotten", [("return self.dropout(self.layer_norm(x))", "return self.dropout(x)")]),
    ("embeddings", "sin and cos swapped", [("table[:, 0::2] = torch.sin(angles)", "table[:, 0::2] = torch.cos(angles)"), ("table[:, 1::2] = torch.cos(angles[:, : d_model // 2])", "table[:, 1::2] = torch.sin(angles[:, : d_model // 2])")]),
    ("embeddings", "exponent uses i instead of 2i", [("* two_i / d_model", "* (two_i / 2) / d_model")]),
    # encoder
    ("encoder", "pre-LN instead of post-LN", [("attended, _ = self.attention(hidden_states, mask)", "attended, _ = self.attention(self.attention_norm(hidden_states), mask)"), ("hidden_states = self.attention_norm(hidden_states + self.dropout(attended))", "hidden_states = hidden_states + self.dropout(attended)")]),
    ("encoder", "residual added after the norm", [("self.attention_norm(hidden_states + self.dropout(attended))", "hidden_states + self.attention_norm(self.dropout(attended))")]),
    ("encoder", "padding mask not passed to the layers", [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")]),
    ("encoder", "token types dropped", [("self.embeddings(input_ids, token_type_ids)", "self.embeddings(input_ids)")]),
    ("encoder", "feed-forward residual forgotten", [("self.output_norm(hidden_states + self.feed_forward(hidden_states))", "self.output_norm(self.feed_forward(hidden_states))")]),
    # decoder
    ("decoder", "no causal mask", [("self_mask = causal_mask(input_ids.size(1), device=input_ids.device)", "self_mask = causal_mask(input_ids.size(1), device=input_ids.device) | True")]),
    ("decoder", "cross-attention attends to the decoder itself", [("key_value_states=encoder_hidden_states", "key_value_states=hidden_states")]),
    ("decoder", "cross mask ignored", [("self.cross_attention(hidden_states, cross_mask,", "self.cross_attention(hidden_states, None,")]),
    ("decoder", "target padding ignored", [("self_mask = self_mask & padding_mask(attention_mask)", "self_mask = self_mask")]),
    # heads
    ("heads", "softmax applied to the logits", [("return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states))))", "return self.decoder(self.layer_norm(F.gelu(self.dense(hidden_states)))).softmax(-1)")]),
    ("heads", "GELU missing from the LM head", [("self.layer_norm(F.gelu(self.dense(hidden_states)))", "self.layer_norm(self.dense(hidden_states))")]),
    ("heads", "classifier mean-pools instead of reading [CLS]", [("torch.tanh(self.pooler(hidden_states[:, 0]))", "torch.tanh(self.pooler(hidden_states.mean(dim=1)))")]),
    ("heads", "tanh missing from the pooler", [("torch.tanh(self.pooler(hidden_states[:, 0]))", "self.pooler(hidden_states[:, 0])")]),
    # seq2seq
    ("seq2seq", "source padding not passed to cross-attention", [("self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)", "self.decoder(decoder_input_ids, memory, decoder_attention_mask)")]),
    ("seq2seq", "finished rows not padded", [("next_token = next_token.masked_fill(finished, pad_token_id)", "next_token = next_token")]),
    ("seq2seq", "decoding never stops early", [("        if finished.all():\n            break\n", "")]),
    ("seq2seq", "next token read from the first position", [("hidden_states[:, -1]", "hidden_states[:, 0]")]),
    # Right to float32 precision only: float32 runs pass, float64 runs must not.
    ("attention", "scale rounded to float32", [("/ math.sqrt(query.size(-1))", "/ torch.tensor(math.sqrt(query.size(-1)), dtype=torch.float32)")]),
    ("multihead", "1/sqrt(Dh) kept as a float32 tensor attribute", [
        ("from torch import nn", "import torch\nfrom torch import nn"),
        ("self.dropout = nn.Dropout(config.attention_probs_dropout_prob)", "self.dropout = nn.Dropout(config.attention_probs_dropout_prob)\n        self.scale = torch.tensor(self.head_dim ** -0.5)"),
        ("_, weights = scaled_dot_product_attention(q, k, v, mask)", "scores = q @ k.transpose(-2, -1) * self.scale\n        weights = (scores if mask is None else scores.masked_fill(~mask, float('-inf'))).softmax(-1)"),
    ]),
    ("layernorm", "variance computed in float32", [("var = (x - mean).pow(2).mean(dim=-1, keepdim=True)", "var = (x - mean).float().pow(2).mean(dim=-1, keepdim=True).to(x.dtype)")]),
    ("feedforward", "GELU computed in float32", [("F.gelu(self.linear1(x))", "F.gelu(self.linear1(x).float()).to(x.dtype)")]),
    ("encoder", "residual summed in float32", [("self.attention_norm(hidden_states + self.dropout(attended))", "self.attention_norm((hidden_states.float() + self.dropout(attended).float()).to(hidden_states.dtype))")]),
    ("heads", "pooler's tanh in float32", [("torch.tanh(self.pooler(hidden_states[:, 0]))", "torch.tanh(self.pooler(hidden_states[:, 0]).float()).to(hidden_states.dtype)")]),
    # A config value ignored: right only for a config with the usual sizes (fixtures/build.py, ODD_CONFIG).
    ("multihead", "head count hard-coded", [("self.num_heads = config.num_attention_heads", "self.num_heads = 4"), ("self.head_dim = config.hidden_size // config.num_attention_heads", "self.head_dim = config.hidden_size // 4")]),
    ("multihead", "head size hard-coded", [("self.head_dim = config.hidden_size // config.num_attention_heads", "self.head_dim = 8")]),
    ("feedforward", "intermediate size hard-coded", [("nn.Linear(config.hidden_size, config.intermediate_size)", "nn.Linear(config.hidden_size, 64)"), ("nn.Linear(config.intermediate_size, config.hidden_size)", "nn.Linear(64, config.hidden_size)")]),
    ("embeddings", "layer norm built without config.layer_norm_eps", [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")]),
    ("embeddings", "two token types hard-coded", [("nn.Embedding(config.type_vocab_size, config.hidden_size)", "nn.Embedding(2, config.hidden_size)")]),
    ("encoder", "layer norm built without config.layer_norm_eps", [("self.attention_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "self.attention_norm = LayerNorm(config.hidden_size)")]),
    ("encoder", "two layers hard-coded", [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")]),
    ("decoder", "output norm built without config.layer_norm_eps", [("self.output_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "self.output_norm = LayerNorm(config.hidden_size)")]),
    ("decoder", "two layers hard-coded", [("for _ in range(config.num_hidden_layers)", "for _ in range(2)")]),
    ("heads", "LM head's layer norm built without config.layer_norm_eps", [("LayerNorm(config.hidden_size, eps=config.layer_norm_eps)", "LayerNorm(config.hidden_size)")]),
    ("heads", "three labels hard-coded", [("nn.Linear(config.hidden_size, config.num_labels)", "nn.Linear(config.hidden_size, 3)")]),
    # A mistake in a part whose own additions another part uses: the other part keeps its points.
    ("multihead", "heads merged without transposing back, built by a from_config the layers use", [
        ("    def forward(self, hidden_states, mask=None, key_value_states=None):",
         "    @classmethod\n    def from_config(cls, config):\n        return cls(config)\n\n"
         "    def forward(self, hidden_states, mask=None, key_value_states=None):"),
        ("context.transpose(1, 2).reshape(B, T, D)", "context.reshape(B, T, D)"),
        ("encoder", "self.attention = MultiHeadAttention(config)", "self.attention = MultiHeadAttention.from_config(config)"),
        ("decoder", "self.cross_attention = MultiHeadAttention(config)", "self.cross_attention = MultiHeadAttention.from_config(config)"),
    ]),
    ("attention", "scores not scaled, with a dropout argument multi-head attention passes", [
        ("def scaled_dot_product_attention(query, key, value, mask=None):", "def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):"),
        (" / math.sqrt(query.size(-1))", ""),
        ("multihead", "_, weights = scaled_dot_product_attention(q, k, v, mask)", "_, weights = scaled_dot_product_attention(q, k, v, mask, dropout=self.dropout)"),
    ]),
    ("layernorm", "unbiased variance, with a helper attribute the other parts read", [
        ("        self.eps = eps\n", "        self.eps = eps\n        self.width = hidden_size\n"),
        (".pow(2).mean(dim=-1, keepdim=True)", ".pow(2).sum(dim=-1, keepdim=True) / (x.size(-1) - 1)"),
        ("encoder", "        return self.output_norm(hidden_states + self.feed_forward(hidden_states))",
         "        assert self.output_norm.width == hidden_states.size(-1)\n        return self.output_norm(hidden_states + self.feed_forward(hidden_states))"),
    ]),
]
