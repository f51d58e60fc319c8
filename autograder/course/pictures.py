"""Pictures for the notebooks: attention heatmaps from the student's own encoder, masks, position tables.

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


def plot_attention(tokens, maps, title="attention weights", heads=None):
    """Heatmaps of attention weights (L, H, T, T): row = query token, column = key token. Every head, a row of
    panels per layer, or only the (layer, head) pairs in heads, side by side."""
    import matplotlib.pyplot as plt

    heads = heads or [(layer, head) for layer in range(len(maps)) for head in range(len(maps[layer]))]
    columns = min(len(heads), len(maps[0]))
    rows = -(-len(heads) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(2.6 * columns, 2.6 * rows), squeeze=False)
    for ax in axes.flat[len(heads) :]:
        ax.set_axis_off()
    for ax, (layer, head) in zip(axes.flat, heads):
        ax.imshow(maps[layer][head].numpy(), vmin=0, vmax=1, cmap="viridis")
        ax.set_title(f"layer {layer}, head {head}", fontsize=9)
        ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=7)
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
