"""In the style of Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapters 3 and 4, made
BERT-exact: the book's W_query/W_key/W_value/out_proj, scale/shift and layers names kept as aliases of the
contract's, a mask passed in (True = attend) instead of the causal buffer, the exact (erf) GELU instead of the
tanh one, dropout after the feed-forward block's second linear. Its idioms stay: one view per projection, a
transpose(1, 2) per tensor, masked_fill_ in place with -torch.inf, scaling by keys.shape[-1] ** 0.5 after it."""
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        d_out, num_heads = config.hidden_size, config.num_attention_heads
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match the desired output dim
        self.query = self.W_query = nn.Linear(config.hidden_size, d_out)
        self.key = self.W_key = nn.Linear(config.hidden_size, d_out)
        self.value = self.W_value = nn.Linear(config.hidden_size, d_out)
        self.output = self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def forward(self, x, mask=None, key_value_states=None):
        b, num_tokens, d_in = x.shape
        source = x if key_value_states is None else key_value_states
        keys = self.W_key(source)  # Shape: (b, num_keys, d_out)
        queries = self.W_query(x)
        values = self.W_value(source)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, source.shape[1], self.num_heads, self.head_dim)
        values = values.view(b, source.shape[1], self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal or padding mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        if mask is not None:
            # Use the mask to fill attention scores
            attn_scores.masked_fill_(~mask, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        context_vec = (self.dropout(attn_weights) @ values).transpose(1, 2)  # Shape: (b, num_tokens, num_heads, head_dim)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection
        return context_vec, attn_weights


class LayerNorm(nn.Module):
    def __init__(self, emb_dim, eps=1e-12):
        super().__init__()
        self.eps = eps
        self.weight = self.scale = nn.Parameter(torch.ones(emb_dim))
        self.bias = self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift


class GELU(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1 + torch.erf(x / torch.sqrt(torch.tensor(2.0, dtype=x.dtype))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.linear1 = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.linear2 = nn.Linear(cfg.intermediate_size, cfg.hidden_size)
        self.layers = nn.Sequential(self.linear1, GELU(), self.linear2)
        self.dropout = nn.Dropout(cfg.hidden_dropout_prob)

    def forward(self, x):
        return self.dropout(self.layers(x))
