"""Pictures for the notebooks: attention heatmaps from the student's own encoder, masks, position tables, training
curves, and diagrams drawn box by box (the head split, the decoder layer's post-LN blocks, the encoder-decoder's data
flow).

The attention maps are those of a real pretrained BERT: the student's encoder with all-MiniLM-L6-v2's weights
(course/minilm.py, offline: the checkpoint ships in a package), or with a local checkpoint's, loaded by SPEC name,
the sentence going through the checkpoint's own tokenizer.
"""

import torch

from autograder.course import minilm


def attention_maps(TransformerEncoder, sentence="The keys to the cabinet are on the table.", checkpoint=None):
    """Run the student's TransformerEncoder with a checkpoint's weights (all-MiniLM-L6-v2 unless a folder in the
    save_pretrained layout is given) on a sentence, and keep every layer's attention weights.

    Returns (tokens, weights (L, H, T, T)): L layers, H heads, row = the token that asks, column = the token it
    looks at. The weights are what each layer's `attention` submodule returns, caught with a forward hook, so
    the encoder itself needs no change.
    """
    model = minilm.pretrained(TransformerEncoder, checkpoint)
    input_ids = model.tokenizer(sentence, return_tensors="pt")["input_ids"]  # (1, T)
    caught = []
    hooks = [
        layer.attention.register_forward_hook(lambda module, args, result: caught.append(result[1][0]))
        for layer in model.encoder.layers
    ]
    try:
        with torch.no_grad():
            model.encoder(input_ids)
    finally:
        for hook in hooks:
            hook.remove()
    return model.tokenizer.convert_ids_to_tokens(input_ids[0]), torch.stack(caught).detach().float()


def cross_attention_maps(model, input_ids, decoder_input_ids, attention_mask=None):
    """Run the student's Seq2SeqTransformer (eval mode, no gradient) and keep each decoder layer's
    cross-attention weights: [(H, T, S) per layer], for the first row of the batch."""
    caught = []
    hooks = [
        layer.cross_attention.register_forward_hook(lambda module, args, result: caught.append(result[1][0]))
        for layer in model.decoder.layers
    ]
    model.eval()
    try:
        with torch.no_grad():
            model(input_ids, decoder_input_ids, attention_mask)
    finally:
        for hook in hooks:
            hook.remove()
    return [weights.detach().cpu().float() for weights in caught]


def plot_attention(tokens, maps, title="attention weights", heads=None, keys=None):
    """Heatmaps of attention weights, (H, T, S) per layer: row = query token, column = key token (keys: the key
    tokens where they are not the queries, as in cross-attention). Every head, a row of panels per layer, or only
    the (layer, head) pairs in heads, side by side."""
    import matplotlib.pyplot as plt

    keys = tokens if keys is None else keys
    heads = heads or [(layer, head) for layer in range(len(maps)) for head in range(len(maps[layer]))]
    columns = min(len(heads), len(maps[0]))
    rows = -(-len(heads) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(2.6 * columns, 2.6 * rows), squeeze=False)
    for ax in axes.flat[len(heads) :]:
        ax.set_axis_off()
    for ax, (layer, head) in zip(axes.flat, heads):
        ax.imshow(maps[layer][head].numpy(), vmin=0, vmax=1, cmap="viridis")
        ax.set_title(f"layer {layer}, head {head}", fontsize=9)
        ax.set_xticks(range(len(keys)), keys, rotation=90, fontsize=7)
        ax.set_yticks(range(len(tokens)), tokens, fontsize=7)
    figure.suptitle(title)
    figure.tight_layout()
    plt.show()


def plot_matrix(matrix, title, xlabel, ylabel, cmap="viridis"):
    """One heatmap with a colour bar: a mask, a table of position encodings."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(6, 4))
    image = ax.imshow(torch.as_tensor(matrix).float().numpy(), cmap=cmap, aspect="auto")
    figure.colorbar(image, ax=ax)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    plt.show()


def plot_masks(lengths=(6, 4), size=6):
    """The masks of Part 1 side by side, True drawn light: the causal mask (T, T), a padding mask for a batch of
    these lengths (B, S: row b is True at its real tokens), and both at once for the shortest row, as a decoder
    combines them (causal_mask & padding_mask)."""
    import matplotlib.pyplot as plt

    causal = torch.ones(size, size, dtype=torch.bool).tril()
    padding = torch.arange(size)[None, :] < torch.tensor(lengths)[:, None]  # (B, S)
    panels = (
        (causal, f"causal ({size}, {size}): j <= i", "key j", "query i"),
        (padding, f"padding (B={len(lengths)}, S={size}), lengths {', '.join(map(str, lengths))}", "key", "row b"),
        (causal & padding[-1], f"causal & padding of row {len(lengths) - 1}", "key j", "query i"),
    )
    figure, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    for ax, (mask, title, xlabel, ylabel) in zip(axes, panels):
        ax.imshow(mask.int().numpy(), cmap="gray", vmin=0, vmax=1)
        for (row, column), allowed in zip(
            torch.cartesian_prod(*map(torch.arange, mask.shape)).tolist(), mask.flatten()
        ):
            ax.text(
                column, row, "T" if allowed else "F", ha="center", va="center", color="black" if allowed else "white"
            )
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel, xticks=range(mask.shape[1]), yticks=range(mask.shape[0]))
    figure.tight_layout()
    plt.show()


def plot_head_split(hidden_size=8, num_heads=2, length=3):
    """Where each feature goes when a (T, D) projection is split into H heads: feature f of every position
    belongs to head f // Dh, and view + transpose make it (H, T, Dh), one (T, Dh) block per head."""
    import matplotlib.pyplot as plt

    head_dim = hidden_size // num_heads
    features = torch.arange(hidden_size).repeat(length, 1)  # (T, D): the feature number of each entry
    heads = features.view(length, num_heads, head_dim).transpose(0, 1)  # (H, T, Dh)
    figure, axes = plt.subplots(
        1,
        1 + num_heads,
        figsize=(1.5 + 1.1 * hidden_size, 2.6),
        width_ratios=[hidden_size] + [head_dim] * num_heads,
    )
    panels = [(features, f"projection (T={length}, D={hidden_size})")]
    panels += [(heads[h], f"head {h}: (T, Dh={head_dim})") for h in range(num_heads)]
    for ax, (block, title) in zip(axes, panels):
        ax.imshow((block // head_dim).numpy(), cmap="tab10", vmin=0, vmax=9)
        for (row, column), feature in zip(
            torch.cartesian_prod(*map(torch.arange, block.shape)).tolist(), block.flatten()
        ):
            ax.text(column, row, str(int(feature)), ha="center", va="center", color="white")
        ax.set(title=title, xlabel="feature", ylabel="position", xticks=[], yticks=range(length))
    figure.suptitle("split_heads: the colour is the head; the number, the feature of the projection it came from")
    figure.tight_layout()
    plt.show()


def plot_loss(losses, title="training loss"):
    """The loss curve so far, drawn in place of the last one: called every few steps, a live plot in Jupyter."""
    import matplotlib.pyplot as plt
    from IPython.display import clear_output, display

    figure, ax = plt.subplots(figsize=(6, 3))
    ax.plot(range(1, len(losses) + 1), losses)
    ax.set(title=title, xlabel="step", ylabel="loss (cross-entropy)", yscale="log")
    clear_output(wait=True)
    display(figure)
    plt.close(figure)


# Box fill colours of the diagrams, by what a box holds: data, a sub-layer, a layer norm or a residual sum.


# Box fill colours of the diagrams, by what a box holds: data, a sub-layer, a layer norm or a residual sum.
COLOURS = {"data": "#e8e8e8", "layer": "#cfe2f3", "norm": "#fce5cd", "sum": "#ffffff"}


def plot_decoder_layer():
    """A decoder layer's three post-LN sub-blocks, x = norm(x + dropout(sublayer(x))), with their shapes."""
    ax = _canvas((7.5, 9), (-3.2, 6.6), (-1.2, 11.6))
    above = _box(ax, 0, 11, 3.6, 0.5, "x (B, T, D): the target so far", "data")
    blocks = (
        (9.3, "masked self-attention\nself mask (T, T) or (B, 1, T, T)", "self_attention_norm", "dropout"),
        (6.0, "cross-attention: queries from x,\nkeys and values from memory", "cross_attention_norm", "dropout"),
        (2.7, "feed-forward\n(ends in its own dropout)", "output_norm", None),
    )
    for y, text, norm, dropout in blocks:
        sublayer = _box(ax, 0, y, 3.6, 0.8, text, "layer")
        plus = _box(ax, 0, y - 1.1, 0.4, 0.4, "+", "sum")
        _arrow(ax, [above["bottom"], sublayer["top"]])
        _arrow(ax, [sublayer["bottom"], plus["top"]], dropout, (0.15, y - 0.65))
        fork = (0, (above["bottom"][1] + sublayer["top"][1]) / 2)
        _arrow(ax, [fork, (-2.9, fork[1]), (-2.9, y - 1.1), plus["left"]], "residual", (-2.8, y - 0.3))
        above = _box(ax, 0, y - 1.8, 3.2, 0.5, f"LayerNorm: {norm}", "norm")
        _arrow(ax, [plus["bottom"], above["top"]])
    memory = _box(ax, 4.6, 6.0, 3.2, 1.1, "memory (B, S, D):\nthe encoder's output;\ncross mask (B, 1, 1, S)", "data")
    _arrow(ax, [memory["left"], (1.8, 6.0)])
    _arrow(ax, [above["bottom"], _box(ax, 0, -0.6, 2.0, 0.5, "x (B, T, D)", "data")["top"]])
    ax.set_title("a decoder layer: three post-LN sub-blocks")
    _show()


def plot_encoder_decoder():
    """The encoder-decoder's data flow: the source encoded once, its output read by every decoder layer."""
    ax = _canvas((9, 5), (-2.2, 7.4), (0.5, 6.9))
    columns = (
        (
            0,
            "source ids (B, S) and its mask",
            "Embeddings",
            "encoder layer × N:\nself-attention (padding mask),\nfeed-forward",
        ),
        (
            5.2,
            "target ids (B, T): BOS, then\nthe target shifted right",
            "Embeddings (all type 0)",
            "decoder layer × N: masked self-attention,\ncross-attention, feed-forward",
        ),
    )
    stacks = []
    for x, ids, embeddings, layers in columns:
        stack = [_box(ax, x, 6.3, 3.6, 0.7, ids, "data"), _box(ax, x, 5.1, 3.6, 0.5, embeddings, "layer")]
        stack.append(_box(ax, x, 3.7, 3.9, 1.0, layers, "layer"))
        stacks.append(stack)
    stacks[0].append(_box(ax, 0, 2.2, 3.2, 0.5, "memory (B, S, D), computed once", "data"))
    stacks[1] += [
        _box(ax, 5.2, 2.2, 3.2, 0.5, "LM head", "layer"),
        _box(ax, 5.2, 1.0, 3.2, 0.5, "logits (B, T, V)", "data"),
    ]
    for stack in stacks:
        for upper, lower in zip(stack, stack[1:]):
            _arrow(ax, [upper["bottom"], lower["top"]])
    memory, decoder = stacks[0][3], stacks[1][2]
    turn = (memory["right"][0] + decoder["left"][0]) / 2
    _arrow(
        ax,
        [memory["right"], (turn, 2.2), (turn, 3.7), decoder["left"]],
        "keys and values,\nsource mask,\nin every layer",
        (turn + 0.1, 2.9),
    )
    ax.set_title("the encoder-decoder model")
    _show()


def _canvas(size, xlim, ylim):
    import matplotlib.pyplot as plt

    ax = plt.subplots(figsize=size)[1]
    ax.set(xlim=xlim, ylim=ylim)
    ax.axis("off")
    return ax


def _show():
    import matplotlib.pyplot as plt

    plt.show()


def _box(ax, x, y, width, height, text, kind):
    """A box centred at (x, y) with its text; returns the middles of its four sides."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0,rounding_size=0.1",
            facecolor=COLOURS[kind],
            edgecolor="0.3",
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=9)
    return {
        "top": (x, y + height / 2),
        "bottom": (x, y - height / 2),
        "left": (x - width / 2, y),
        "right": (x + width / 2, y),
    }


def _arrow(ax, points, label=None, at=None):
    """A line through points with an arrow head at the last, and its label at `at`, left-aligned."""
    xs, ys = zip(*points)
    if len(points) > 2:
        ax.plot(xs[:-1], ys[:-1], color="0.3", linewidth=1)
    ax.annotate(
        "", xy=points[-1], xytext=points[-2], arrowprops=dict(arrowstyle="->", color="0.3", shrinkA=0, shrinkB=0)
    )
    if label:
        ax.text(*at, label, fontsize=8, color="0.3", ha="left", va="center")


def plot_curves(curves, title, xlabel="step", ylabel="loss (cross-entropy)", log=True, live=False):
    """Several curves on one plot: curves = {label: (xs, ys)}. live: drawn in place of the last plot (called every
    few steps, a live plot in Jupyter)."""
    import matplotlib.pyplot as plt
    from IPython.display import clear_output, display

    figure, ax = plt.subplots(figsize=(6, 3))
    for label, (xs, ys) in curves.items():
        ax.plot(list(xs), list(ys), label=label)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel, yscale="log" if log else "linear")
    ax.legend()
    if live:
        clear_output(wait=True)
    display(figure)
    plt.close(figure)
