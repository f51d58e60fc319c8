"""Scaled dot-product attention, the operation every other part of the transformer is built on."""

import math

import torch


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
    """
    raise NotImplementedError('scores = query @ keyᵀ / sqrt(Dh) (..., T, S); blocked scores become -inf; softmax over S; weights @ value.')
