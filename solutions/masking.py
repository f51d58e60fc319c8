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
    # Hint 1: query i may see keys 0 to i: drawn as a (T, T) matrix of True and False, what shape does the True part make? Is the diagonal in it?
    # Hint 2: a lower-triangular (T, T) boolean matrix, diagonal included (torch.tril).
    # Hint 3: return torch.tril(torch.ones(size, size, dtype=torch.bool, device=device))
    ### BEGIN SOLUTION
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()
    ### END SOLUTION


def padding_mask(attention_mask):
    """Turn Hugging Face's 0/1 attention_mask into a mask that broadcasts over heads and queries.

    Args:
        attention_mask: (B, S) integers, 1 at real tokens and 0 at padding.

    Returns:
        bool (B, 1, 1, S), True at real tokens.
    """
    # Hint 1: the mask must broadcast against scores (B, H, T, S): which dimensions does (B, S) lack, and where do they go?
    # Hint 2: compare with 1 (or cast to bool), then add the head and query dimensions: (B, S) -> (B, 1, 1, S).
    # Hint 3: return (attention_mask == 1)[:, None, None, :]
    ### BEGIN SOLUTION
    return attention_mask.bool()[:, None, None, :]  # (B, 1, 1, S)
    ### END SOLUTION
