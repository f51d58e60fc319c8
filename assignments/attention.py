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
    raise NotImplementedError()


def masked_scores(scores, mask=None):
    """The scores with every blocked position set to -inf, so that the softmax gives it weight exactly 0.

    Args:
        scores: (..., T, S)
        mask:   bool, broadcastable to (..., T, S); True where the query may attend. None: nothing is blocked.

    Returns:
        (..., T, S), a new tensor: the scores unchanged where the mask is True, -inf where it is False.
    """
    raise NotImplementedError()


def attention_weights(scores):
    """Each query's scores turned into weights that are positive and sum to 1 over the keys.

    Args:
        scores: (..., T, S), -inf where blocked.

    Returns:
        (..., T, S): the softmax over the LAST dimension, S (over the keys, not the queries).
    """
    raise NotImplementedError()


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
    raise NotImplementedError()
