"""Pictures for the notebooks: attention heatmaps from the student's own encoder, masks, position tables.

Offline by default: the encoder gets seeded weights and a small word-level vocabulary. Given a local
checkpoint (the save_pretrained layout, with its tokenizer), it gets the checkpoint's weights instead,
loaded by SPEC name, and the sentence goes through the checkpoint's own tokenizer.
"""

import os
import re
from types import SimpleNamespace

import torch

from autograder.course import public

WORDS = [
    "time",
    "flies",
    "like",
    "an",
    "arrow",
    "fruit",
    "a",
    "banana",
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "and",
    "then",
    "it",
    "rests",
    "attention",
    "is",
    "all",
    "you",
    "need",
]
VOCABULARY = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", *dict.fromkeys(WORDS))
TOY_CONFIG = dict(
    vocab_size=len(VOCABULARY),
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=64,
    max_position_embeddings=32,
)


def toy_tokenize(sentence):
    """[CLS] words [SEP] over VOCABULARY: lower case, punctuation dropped, unknown words as [UNK]."""
    words = re.findall(r"[a-z']+", sentence.lower())
    tokens = ["[CLS]", *(w if w in VOCABULARY else "[UNK]" for w in words), "[SEP]"]
    return tokens, torch.tensor([[VOCABULARY.index(t) for t in tokens]])


def attention_maps(TransformerEncoder, sentence="Time flies like an arrow.", checkpoint=None):
    """Run the student's TransformerEncoder on a sentence and keep every layer's attention weights.

    Returns (tokens, [weights (H, T, T) per layer]). The weights are what each layer's `attention`
    submodule returns, caught with a forward hook, so the encoder itself needs no change.
    """
    if checkpoint:
        encoder, tokens, input_ids = _pretrained(TransformerEncoder, sentence, checkpoint)
    else:
        encoder = public.seeded(TransformerEncoder, public.config(**TOY_CONFIG), seed=0)
        tokens, input_ids = toy_tokenize(sentence)
    caught = []
    hooks = [
        layer.attention.register_forward_hook(lambda module, args, result: caught.append(result[1][0]))
        for layer in encoder.layers
    ]
    try:
        with torch.no_grad():
            encoder(input_ids.to(next(encoder.parameters()).device))
    finally:
        for hook in hooks:
            hook.remove()
    return tokens, [weights.detach().cpu().float() for weights in caught]


def _pretrained(TransformerEncoder, sentence, checkpoint):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoConfig, AutoTokenizer, BertModel

    from autograder.engine.judge import hf

    config = AutoConfig.from_pretrained(checkpoint, local_files_only=True)
    encoder = TransformerEncoder(SimpleNamespace(**hf.spec_config(config))).eval()
    shapes = {name: tuple(value.shape) for name, value in encoder.state_dict().items()}
    model = BertModel.from_pretrained(checkpoint, local_files_only=True)
    encoder.load_state_dict(hf.to_spec(model.state_dict(), shapes), strict=True)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint, local_files_only=True)
    input_ids = tokenizer(sentence, return_tensors="pt")["input_ids"]
    return encoder, tokenizer.convert_ids_to_tokens(input_ids[0]), input_ids


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


def plot_attention(tokens, maps, title="attention weights", keys=None):
    """A grid of heatmaps, a row per layer and a column per head: row = query token, column = key token
    (keys: the key tokens, where they are not the queries, as in cross-attention)."""
    import matplotlib.pyplot as plt

    keys = tokens if keys is None else keys
    layers, heads = len(maps), maps[0].shape[0]
    figure, axes = plt.subplots(layers, heads, figsize=(2.6 * heads, 2.6 * layers), squeeze=False)
    for layer, weights in enumerate(maps):
        for head in range(heads):
            ax = axes[layer][head]
            ax.imshow(weights[head].numpy(), vmin=0, vmax=1, cmap="viridis")
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
