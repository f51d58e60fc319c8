"""Scaled dot-product attention, the operation every other part of the transformer is built on."""

import math

import torch


def attention_scores(query, key):
    """How well each query matches each key, scaled so that the scores have about unit variance.

    Args:
        query: (..., T, Dh)
        key:   (..., S, Dh)

    Returns:
        (..., T, S): entry [t, s] is query[t] · key[s] / sqrt(Dh).
    """
    # Hint 1: entry [t, s] is a dot product of query t and key s: which matrix product gives every pair at once, and which dimensions of the key must trade places for it?
    # Hint 2: a matrix product with the key's last two dimensions swapped (transpose(-2, -1)), divided by sqrt(Dh).
    # Hint 3: Dh = query.size(-1); return query @ key.transpose(-2, -1) / math.sqrt(Dh)
    ### BEGIN SOLUTION
    head_dim = query.shape[-1]
    return query @ key.transpose(-2, -1) / math.sqrt(head_dim)  # (..., T, S)
    ### END SOLUTION


def masked_scores(scores, mask=None):
    """The scores with every blocked position set to -inf, so that the softmax gives it weight exactly 0.

    Args:
        scores: (..., T, S)
        mask:   bool, broadcastable to (..., T, S); True where the query may attend. None: nothing is blocked.

    Returns:
        (..., T, S), a new tensor: the scores unchanged where the mask is True, -inf where it is False.
    """
    # Hint 1: which positions must change, those where the mask is True or those where it is False, and to what value, so that e^score is exactly 0?
    # Hint 2: masked_fill fills where its mask is True, so give it the blocked positions: mask.logical_not() (or ~mask), and -inf.
    # Hint 3: return scores when mask is None; else blocked = ~mask and return scores.masked_fill(blocked, float('-inf'))
    ### BEGIN SOLUTION
    if mask is None:
        return scores
    return scores.masked_fill(mask.logical_not(), -math.inf)  # (..., T, S)
    ### END SOLUTION


def attention_weights(scores):
    """Each query's scores turned into weights that are positive and sum to 1 over the keys.

    Args:
        scores: (..., T, S), -inf where blocked.

    Returns:
        (..., T, S): the softmax over the LAST dimension, S (over the keys, not the queries).
    """
    # Hint 1: each query's weights sum to 1 over what: the keys or the queries? Which dimension of (..., T, S) is that?
    # Hint 2: torch.softmax(scores, dim=...) with the keys' dimension; probabilities, not log-probabilities.
    # Hint 3: return scores.softmax(dim=-1)
    ### BEGIN SOLUTION
    return scores.softmax(dim=-1)  # (..., T, S), each row sums to 1
    ### END SOLUTION


def scaled_dot_product_attention(query, key, value, mask=None):
    """Let every query take a weighted average of the values, weighted by how well it matches each key.

    Args:
        query: (..., T, Dh) one row per position that asks.
        key:   (..., S, Dh) one row per position that can be attended to.
        value: (..., S, Dv) what each of those positions contributes.
        mask:  bool, broadcastable to (..., T, S); True where the query may attend to the key.

    Returns:
        output:  (..., T, Dv) weights @ value.
        weights: (..., T, S) softmax over S of query·keyᵀ / sqrt(Dh); exactly 0 where the mask blocks.

    Rows in which the mask blocks every key are never graded: their softmax is 0/0 (NaN here), and what they
    hold is left to you.
    """
    # Hint 1: you have written the scores, the mask and the weights as steps: in which order do they compose, and what do the weights multiply?
    # Hint 2: your three steps in turn, then a matrix product of the weights with the values.
    # Hint 3: weights = attention_weights(masked_scores(attention_scores(query, key), mask)); return the pair (weights @ value, weights)
    ### BEGIN SOLUTION
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., T, S)
    if mask is not None:
        # -inf rather than a large negative number: exp(-inf) is exactly 0 in every dtype.
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., T, S), each row sums to 1
    return weights @ value, weights  # (..., T, Dv), (..., T, S)
    ### END SOLUTION
