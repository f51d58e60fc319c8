"""Attention, masks and layer norm: the pieces everything else imports (as `import core`)."""
import math

import torch
from torch import nn


def scaled_dot_product_attention(query, key, value, mask=None):
    """Heads flattened into the batch for bmm; blocked keys get an additive finfo.min."""
    *lead, t, d = query.shape
    s = key.shape[-2]
    q = query.reshape(-1, t, d)
    k = key.reshape(-1, s, d)
    v = value.reshape(-1, s, value.shape[-1])
    scores = torch.bmm(q, k.transpose(1, 2)).view(*lead, t, s) / math.sqrt(d)
    if mask is not None:
        blocked = (~mask).to(scores.dtype) * torch.finfo(scores.dtype).min
        scores = scores + blocked
    scores = scores - scores.amax(dim=-1, keepdim=True)
    exp = scores.exp()
    probs = exp / exp.sum(dim=-1, keepdim=True)
    out = torch.bmm(probs.reshape(-1, t, s), v).view(*lead, t, value.shape[-1])
    return out, probs


def causal_mask(size, device=None):
    return torch.tril(torch.ones(size, size, device=device)).bool()


def padding_mask(attention_mask):
    return attention_mask[:, None, None, :].to(torch.bool)


class LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super(LayerNorm, self).__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.variance_epsilon = eps

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = (x - u).pow(2).mean(-1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.variance_epsilon)
        return self.weight * x + self.bias
