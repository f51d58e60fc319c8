"""Boolean attention masks: True means "may attend"."""

import torch


def causal_mask(size, device=None):
    """Mask that lets position i attend to positions 0..i only.

    Args:
        size: T, the sequence length.
        device: where to create the mask.

    Returns:
        bool (T, T), True at [i, j] where j <= i.
    """
    raise NotImplementedError()


def padding_mask(attention_mask):
    """Turn Hugging Face's 0/1 attention_mask into a mask that broadcasts over heads and queries.

    Args:
        attention_mask: (B, S) integers, 1 at real tokens and 0 at padding.

    Returns:
        bool (B, 1, 1, S), True at real tokens.
    """
    raise NotImplementedError()
