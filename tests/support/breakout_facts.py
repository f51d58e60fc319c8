"""What the breakout questions' numeric answers (and value-type options) are, computed from real modules.

A question names one of these with `verified_by`. Each computes the value from the kit's reference
implementation and, where BERT has the same part, from a Hugging Face model built offline, asserts the
two agree, and returns the value; tests/unit/test_breakout.py compares it with the answer in the bank.
Hugging Face's classes are imported by the facts that build them: imported here, every run of the tests, a single
test's too, would wait for transformers' import while it collects.
"""

import math
from functools import cache
from types import SimpleNamespace

import torch
from torch.nn import functional as F

from autograder.course import jupyter
from autograder.course.notebooks import EXERCISES
from autograder.engine.child import runtime
from autograder.engine.contract import loader, spec
from support.helpers import replace_in

FACTS = {}


def fact(function):
    FACTS[function.__name__] = function
    return function


@cache
def reference():
    """The reference's SPEC names, loaded in this process."""
    names, problems = jupyter.load_names(spec.SOLUTIONS)
    assert not problems, problems
    return names


@cache
def language_model():
    """Part 10's exercises (course/exercises/language_model.py) as the reference solves them: {name: object}."""
    return language_model_with()


def language_model_with(*edits, reference_edits=None):
    """Part 10's exercises loaded beside the reference, with (text, replacement) edits of their source, and of the
    reference's files: reference_edits {module (a component's id): [(text, replacement)]}."""
    source = (EXERCISES / "language_model.py").read_text()
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} is not in the exercises once"
        source = source.replace(old, new)
    units = loader.load(spec.SOLUTIONS).as_message()["units"]
    for unit in units:
        for old, new in (reference_edits or {}).get(unit["module"], []):
            unit["code"] = replace_in(unit["code"], old, new, spec.BY_ID[unit["module"]].names, unit["module"])
    units.append({"module": "language_model", "label": "language_model.py", "code": source})
    modules, problems = runtime.load_modules(units)
    assert not problems, problems
    return vars(modules["language_model"])


def bert_base(**overrides):
    """BERT-base's configuration (BertConfig's defaults), with eager attention so weights come back."""
    from transformers import BertConfig

    return BertConfig(attn_implementation="eager", **overrides)


def parameters(module):
    return sum(p.numel() for p in module.parameters())


def agree(ours, theirs, what):
    assert ours == theirs, f"{what}: the reference gives {ours}, Hugging Face {theirs}"
    return ours


@cache
def hf_bert_base_layer():
    from transformers.models.bert.modeling_bert import BertLayer

    return BertLayer(bert_base())


@fact
def dot_product_variance_64():
    # 200,000 seeded samples: the estimate's standard error is about 0.2, a fifth of the question's tolerance.
    generator = torch.Generator().manual_seed(0)
    q, k = (torch.randn(200_000, 64, generator=generator, dtype=torch.float64) for _ in range(2))
    return (q * k).sum(-1).var().item()


@fact
def scores_per_head_512():
    from transformers import BertModel

    x = torch.randn(512, 64)
    _, weights = reference()["scaled_dot_product_attention"](x, x, x)
    config = bert_base(num_hidden_layers=1, num_attention_heads=1, hidden_size=64, intermediate_size=64)
    with torch.no_grad():
        hf = BertModel(config).eval()(torch.zeros(1, 512, dtype=torch.long), output_attentions=True).attentions[0]
    return agree(weights.numel(), hf[0, 0].numel(), "weights of one head over 512 tokens")


@fact
def causal_mask_6_blocked():
    return (~reference()["causal_mask"](6)).sum().item()


@fact
def padding_mask_shape_4_9():
    return tuple(reference()["padding_mask"](torch.ones(4, 9, dtype=torch.long)).shape)


@fact
def multihead_parameters_bert_base():
    ours = parameters(reference()["MultiHeadAttention"](bert_base()))
    attention = hf_bert_base_layer().attention
    return agree(ours, parameters(attention.self) + parameters(attention.output.dense), "MultiHeadAttention parameters")


@fact
def head_scale_bert_base():
    """The number each head divides its scores by, read off the weights that the reference and BERT's
    self-attention return for the same seeded projections: log w_j − log w_0 = (s_j − s_0) / scale."""
    torch.manual_seed(0)
    ours = reference()["MultiHeadAttention"](bert_base()).double().eval()
    theirs = hf_bert_base_layer().attention.self.double().eval()
    theirs.load_state_dict({k: v for k, v in ours.state_dict().items() if not k.startswith("output.")})
    x = torch.randn(1, 3, 768, dtype=torch.float64)
    q, k = (getattr(ours, name)(x).view(1, 3, 12, 64).transpose(1, 2) for name in ("query", "key"))
    scores = q @ k.transpose(-2, -1)

    def scale(weights):
        return ((scores[..., 1] - scores[..., 0]) / (weights[..., 1].log() - weights[..., 0].log())).mean().item()

    with torch.no_grad():
        found = scale(ours(x)[1]), scale(theirs(x)[1])
    return agree(*(round(value, 6) for value in found), "the scale of BERT-base's attention scores")


@fact
def cross_attention_weights_shape():
    from transformers import BertModel

    config = bert_base(
        hidden_size=16,
        num_attention_heads=4,
        intermediate_size=32,
        num_hidden_layers=1,
        vocab_size=10,
        is_decoder=True,
        add_cross_attention=True,
    )
    attention = reference()["MultiHeadAttention"](config).eval()
    _, weights = attention(torch.randn(2, 3, 16), key_value_states=torch.randn(2, 5, 16))
    with torch.no_grad():
        hf = (
            BertModel(config)
            .eval()(
                torch.zeros(2, 3, dtype=torch.long), encoder_hidden_states=torch.randn(2, 5, 16), output_attentions=True
            )
            .cross_attentions[0]
        )
    return agree(tuple(weights.shape), tuple(hf.shape), "cross-attention weights shape")


@fact
def feedforward_parameters_bert_base():
    ours = parameters(reference()["FeedForward"](bert_base()))
    layer = hf_bert_base_layer()
    return agree(ours, parameters(layer.intermediate.dense) + parameters(layer.output.dense), "FeedForward parameters")


def _layernorm_last_entry(values, eps=1e-12):
    """The last entry of a fresh layer norm's output, from the reference's LayerNorm and from torch's."""
    x = torch.tensor([values], dtype=torch.float64)
    ours = reference()["LayerNorm"](len(values), eps).double()(x)[0, -1].item()
    theirs = torch.nn.LayerNorm(len(values), eps=eps).double()(x)[0, -1].item()
    assert math.isclose(ours, theirs, rel_tol=1e-12), (ours, theirs)
    return ours


@fact
def layernorm_last_entry():
    return _layernorm_last_entry([1.0, 2.0, 3.0, 4.0])


@fact
def embeddings_parameters_bert_base():
    from transformers import BertModel

    with torch.device("meta"):  # only shapes are counted: no 23M-entry tables to fill
        ours = parameters(reference()["Embeddings"](bert_base()))
        theirs = parameters(BertModel(bert_base()).embeddings)
    return agree(ours, theirs, "Embeddings parameters")


@fact
def sinusoidal_position_1_dimension_0():
    return reference()["sinusoidal_positional_encoding"](8, 16)[1, 0].item()


def _work_at_length(length):
    """Parameters, attention weights and feed-forward multiplications of one forward pass over `length` tokens.

    Counted from real forward passes of a narrow BERT (BERT-base's layout, heads and position table, at
    width 48 and two layers, so a pass is cheap): how each grows with the length does not depend on the width.
    """
    from transformers import BertModel

    config = bert_base(hidden_size=48, intermediate_size=192, num_hidden_layers=2)
    torch.manual_seed(0)
    encoder = reference()["TransformerEncoder"](config).eval()
    weights, multiplications = [], []
    hooks = [
        layer.attention.register_forward_hook(lambda module, args, out: weights.append(out[1].numel()))
        for layer in encoder.layers
    ]
    hooks += [
        layer.feed_forward.register_forward_hook(
            lambda module, args, out: multiplications.append(
                args[0].numel() // config.hidden_size * (module.linear1.weight.numel() + module.linear2.weight.numel())
            )
        )
        for layer in encoder.layers
    ]
    input_ids = torch.randint(0, config.vocab_size, (1, length))
    with torch.no_grad():
        encoder(input_ids)
        hf = BertModel(config, add_pooling_layer=False).eval()(input_ids, output_attentions=True).attentions
    for hook in hooks:
        hook.remove()
    agree(sum(weights), sum(a.numel() for a in hf), f"attention weights over {length} tokens")
    return parameters(encoder), sum(weights), sum(multiplications)


@fact
def growth_from_256_to_512_tokens():
    ratios = [longer / shorter for longer, shorter in zip(_work_at_length(512), _work_at_length(256))]
    assert all(ratio.is_integer() for ratio in ratios), ratios
    parameters_, weights, multiplications = map(int, ratios)
    return (
        f"The parameters × {parameters_}, the attention weights × {weights}, "
        f"the feed-forward blocks' multiplications × {multiplications}."
    )


@fact
def cross_entropy_of_logits():
    logits = torch.tensor([[2.0, 0.5, -1.0]], dtype=torch.float64)
    loss = F.cross_entropy(logits, torch.tensor([0])).item()
    assert math.isclose(loss, -torch.log_softmax(logits, -1)[0, 0].item(), rel_tol=1e-12)
    return loss


@fact
def uniform_loss_over_13_tokens():
    loss = F.cross_entropy(torch.zeros(1, 13, dtype=torch.float64), torch.tensor([5])).item()
    assert math.isclose(loss, math.log(13), rel_tol=1e-12)
    return loss


@cache
@cache
def training_reference():
    """Part 9's exercises as the reference solves them: the training component's SPEC names and
    course/exercises/training_loop.py's, loaded beside the reference, as a namespace."""
    units = loader.load(spec.SOLUTIONS).as_message()["units"]
    source = (EXERCISES / "training_loop.py").read_text()
    units.append({"module": "training_loop", "label": "training_loop.py", "code": source})
    modules, problems = runtime.load_modules(units)
    assert not problems, problems
    return SimpleNamespace(**(vars(modules["training"]) | vars(modules["training_loop"])))


@fact
def adam_first_step_with_warmup():
    """Adam's first move is the step's learning rate, for gradients over five orders of magnitude."""
    rate = training_reference().learning_rate(1, 0.02, 30, 300)
    weights = torch.zeros(1000, dtype=torch.float64, requires_grad=True)
    sizes = 10 ** torch.linspace(-3, 2, 1000, dtype=torch.float64)
    weights.grad = sizes * torch.randn(1000, generator=torch.Generator().manual_seed(0), dtype=torch.float64).sign()
    torch.optim.Adam([weights], lr=rate).step()
    torch.testing.assert_close(weights.detach().abs(), torch.full_like(sizes, rate), rtol=1e-4, atol=0)
    return rate


def _combined_mask():
    names = reference()
    return names["causal_mask"](6) & names["padding_mask"](torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]))


@fact
def combined_mask_shape_2_6():
    return tuple(_combined_mask().shape)


@fact
def combined_mask_true_entries():
    return _combined_mask()[0].sum().item()


@cache
def _greedy_runs(max_new_tokens=10):
    """(length of the result, encoder runs, decoder runs) of the reference greedy_decode on a seeded model,
    with an end token outside the vocabulary, so that no row ever finishes."""
    names = reference()
    config = bert_base(vocab_size=20, hidden_size=16, num_attention_heads=4, intermediate_size=32, num_hidden_layers=1)
    torch.manual_seed(0)
    model = names["Seq2SeqTransformer"](config, config).eval()
    runs = {"encoder": 0, "decoder": 0}
    for part in runs:
        getattr(model, part).register_forward_hook(
            lambda module, args, out, part=part: runs.__setitem__(part, runs[part] + 1)
        )
    tokens = names["greedy_decode"](
        model,
        torch.randint(2, 20, (3, 7)),
        bos_token_id=1,
        eos_token_id=20,
        pad_token_id=0,
        max_new_tokens=max_new_tokens,
    )
    return tokens.shape[1], runs["encoder"], runs["decoder"]


@fact
def greedy_decode_length_without_eos():
    return _greedy_runs()[0]


@fact
def greedy_decode_runs():
    _, encoder, decoder = _greedy_runs()
    return f"The encoder {'once' if encoder == 1 else f'{encoder} times'}, the decoder {decoder} times."


@fact
def greedy_decode_left_in_train_mode():
    """Two decodes of one batch by a model left in train mode (dropout 0.1), then two after model.eval()."""
    names = reference()
    config = bert_base(vocab_size=20, hidden_size=16, num_attention_heads=4, intermediate_size=32, num_hidden_layers=1)
    torch.manual_seed(0)
    model = names["Seq2SeqTransformer"](config, config)
    source = torch.randint(2, 20, (4, 7))

    def decode():
        return names["greedy_decode"](model, source, bos_token_id=1, eos_token_id=20, pad_token_id=0, max_new_tokens=10)

    in_train_mode = [decode() for _ in range(2)]
    model.eval()
    in_eval_mode = [decode() for _ in range(2)]
    assert torch.equal(*in_eval_mode), "in eval mode greedy decoding is deterministic"
    if torch.equal(*in_train_mode):
        return "The same tokens as in eval mode."
    return "Dropout stays on in every pass, under torch.no_grad() too: two calls on one source can give other tokens."


@fact
def layernorm_after_scaling_and_shifting():
    return _layernorm_last_entry([10 * value + 7 for value in (1.0, 2.0, 3.0, 4.0)])


@fact
def layernorm_eps_inside_the_root():
    return _layernorm_last_entry([0.0, 2.0], eps=1.0)


@fact
def gelu_of_one():
    from transformers.activations import ACT2FN

    x = torch.tensor(1.0, dtype=torch.float64)
    ours = F.gelu(x).item()  # what the reference's FeedForward applies: the exact form, erf
    theirs = ACT2FN[bert_base().hidden_act](x).item()
    assert math.isclose(ours, theirs, rel_tol=1e-12) and math.isclose(
        ours, 0.5 * (1 + math.erf(1 / math.sqrt(2))), rel_tol=1e-12
    )
    return ours


@fact
def attention_by_hand_first_weight():
    query = torch.tensor([[[1.0, 0.0]]], dtype=torch.float64)  # (B=1, T=1, Dh=2)
    keys = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]], dtype=torch.float64)  # (1, S=2, 2)
    values = torch.tensor([[[10.0], [0.0]]], dtype=torch.float64)
    output, weights = reference()["scaled_dot_product_attention"](query, keys, values)
    theirs = F.scaled_dot_product_attention(query, keys, values)
    assert math.isclose(output.item(), theirs.item(), rel_tol=1e-12)
    return weights[0, 0, 0].item()


@fact
def tied_lm_head_saves_bert_base():
    from transformers import BertForMaskedLM

    config = bert_base()
    with torch.device("meta"):  # only shapes are counted, and which weights are shared
        embeddings, head = reference()["Embeddings"](config), reference()["LanguageModelHead"](config)
        model = BertForMaskedLM(config)
    untied = parameters(torch.nn.ModuleList([embeddings, head]))  # the kit's head has a decoder weight of its own
    head.decoder.weight = embeddings.token_embeddings.weight  # tied as BERT ties them; parameters() counts it once
    saved = untied - parameters(torch.nn.ModuleList([embeddings, head]))
    theirs = model.cls.predictions.decoder.weight
    assert theirs is model.bert.embeddings.word_embeddings.weight, "Hugging Face ties the decoder to the token table"
    return agree(saved, theirs.numel(), "the decoder's weights, which tying shares")


@fact
def bert_base_parameters():
    from transformers import BertModel

    config = bert_base()
    with torch.device("meta"):  # only shapes are counted
        encoder = reference()["TransformerEncoder"](config)
        pooler = torch.nn.Linear(config.hidden_size, config.hidden_size)
        theirs = parameters(BertModel(config))
    return agree(parameters(encoder) + parameters(pooler), theirs, "BERT-base's parameters")


@fact
def temperature_half_first_probability():
    """softmax((2, 1, 0) / 0.5)[0], and the reference sampler draws token 0 that often (20,000 draws)."""
    logits = torch.tensor([[2.0, 1.0, 0.0]], dtype=torch.float64)
    probability = reference()["sampling_probabilities"](logits, 0.5)[0, 0].item()
    drawn = reference()["sample_next"](logits.expand(20_000, -1), 0.5, generator=torch.Generator().manual_seed(0))
    # The frequency's standard error is sqrt(p (1 - p) / 20000) = 0.0024: 0.01 is four of them.
    assert abs((drawn == 0).double().mean().item() - probability) < 0.01
    return probability


@fact
def top_p_tokens_kept():
    """How many of the logits (2, 1, 0, -1) top-p 0.9 keeps at temperature 1: the reference, and Hugging Face's
    TopPLogitsWarper."""
    from transformers.generation.logits_process import TopPLogitsWarper

    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0]], dtype=torch.float64)
    ours = int((reference()["sampling_probabilities"](logits, top_p=0.9) > 0).sum())
    theirs = int(TopPLogitsWarper(0.9)(None, logits.clone()).isfinite().sum())
    return agree(ours, theirs, "the tokens top-p 0.9 keeps of (2, 1, 0, -1)")


def _positions_through_the_model(cached, prompt=10, new_tokens=90):
    """The positions the reference's generate runs through the LM head (the model's last part) in all."""
    names = language_model()
    config = bert_base(vocab_size=20, hidden_size=16, num_attention_heads=4, intermediate_size=32, num_hidden_layers=2)
    torch.manual_seed(0)
    model = names["CharLM"](config)
    rows = []
    model.lm_head.register_forward_hook(lambda module, args, out: rows.append(out.size(1)))
    names["generate"](model, torch.randint(0, 20, (1, prompt)), new_tokens, cached=cached)
    return sum(rows)


@fact
def positions_without_kv_cache():
    return _positions_through_the_model(cached=False)


@fact
def positions_with_kv_cache():
    return _positions_through_the_model(cached=True)


# all-MiniLM-L6-v2, the pretrained BERT that part 5 loads into the student's encoder (it ships in a package).
ATTENTION_SENTENCE = "The keys to the cabinet are on the table."


@cache
def minilm_attentions(sentence):
    """(tokens, attention weights (L, H, T, T)) of all-MiniLM-L6-v2 on a sentence, as part 5 draws them (the
    reference's encoder with the checkpoint's weights), asserted equal to Hugging Face's BertModel's."""
    from autograder.course import minilm, pictures
    from autograder.engine.judge.tolerances import tolerance

    tokens, maps = pictures.attention_maps(reference()["TransformerEncoder"], sentence)
    model = minilm.pretrained(reference()["TransformerEncoder"])
    with torch.no_grad():
        theirs = model.bert(**model.tokenizer(sentence, return_tensors="pt"), output_attentions=True).attentions
    allowed = tolerance("float32", "encoder")
    torch.testing.assert_close(maps, torch.cat(theirs), rtol=allowed.rtol, atol=allowed.atol)
    return tokens, maps


def strongest(score):
    """The (layer, head) where an (L, H) score is largest."""
    return divmod(score.argmax().item(), score.shape[1])


@fact
def minilm_cls_share():
    _, maps = minilm_attentions(ATTENTION_SENTENCE)
    to_cls = maps[:, :, 1:-1, 0].mean(-1)  # (L, H): the words' mean weight on [CLS]
    assert strongest(to_cls) == (4, 5), "the question names the head that attends most to [CLS]"
    return to_cls[4, 5].item()


@fact
def clipping_per_tensor_turns_the_step():
    """Gradients (3, 4) and (0.3, 0.4) clipped to 1: tensor by tensor, the cosine of the step with the gradient;
    by the total norm (the reference's clip_gradient_norm, torch's clip_grad_norm_ alike) it stays 1."""
    grads = [torch.tensor([3.0, 4.0], dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64)]

    def clipped(per_tensor):
        parameters = [torch.nn.Parameter(torch.zeros_like(g)) for g in grads]
        for parameter, grad in zip(parameters, grads, strict=True):
            parameter.grad = grad.clone()
        if per_tensor:
            for parameter in parameters:
                torch.nn.utils.clip_grad_norm_(parameter, 1.0)
        else:
            reference()["clip_gradient_norm"](parameters, 1.0)
        return torch.cat([parameter.grad for parameter in parameters])

    whole = torch.cat(grads)
    total = F.cosine_similarity(clipped(per_tensor=False), whole, dim=0).item()
    assert abs(total - 1) < 1e-12, "clipping by the total norm keeps the direction"
    return F.cosine_similarity(clipped(per_tensor=True), whole, dim=0).item()


class _TwoTokens(torch.nn.Module):
    """A stand-in for a Seq2SeqTransformer that writes two tokens of A and B then EOS, with the probabilities of the
    question beam_finds_likelier: its decoder's output at each position is the next token's log-probabilities given
    the tokens so far, and its LM head passes them on."""

    PAD, BOS, EOS, A, B = range(5)
    NEXT = {
        (BOS,): {A: 0.6, B: 0.4},
        (BOS, A): {A: 0.5, B: 0.4, EOS: 0.1},
        (BOS, B): {A: 0.9, B: 0.05, EOS: 0.05},
    }

    def __init__(self):
        super().__init__()
        self.lm_head = torch.nn.Identity()

    def encoder(self, input_ids, attention_mask=None):
        return torch.zeros(*input_ids.shape, 1, dtype=torch.float64)

    def probabilities(self, prefix):
        """(V,) the next token's probabilities after prefix (a tuple of ids): EOS for certain after two tokens."""
        row = torch.zeros(5, dtype=torch.float64)
        for token, probability in self.NEXT.get(prefix, {self.EOS: 1.0}).items():
            row[token] = probability
        return row

    def decoder(self, input_ids, encoder_hidden_states, attention_mask=None, encoder_attention_mask=None):
        rows = [
            [self.probabilities(tuple(tokens[: k + 1])) for k in range(len(tokens))] for tokens in input_ids.tolist()
        ]
        return torch.stack([torch.stack(row) for row in rows]).log()  # (B, L, V)

    def probability_of(self, written):
        """The probability of a written row (BOS first), up to its EOS."""
        tokens, probability = written.tolist(), 1.0
        for k in range(1, len(tokens)):
            probability *= self.probabilities(tuple(tokens[:k]))[tokens[k]].item()
            if tokens[k] == self.EOS:
                break
        return probability


@fact
def beam_search_two_beams_probability():
    """The probability of what the reference's beam_search returns with 2 beams on the question's model, where its
    greedy_decode writes A A (0.30)."""
    model, names = _TwoTokens(), reference()
    source = torch.tensor([[3]])
    ids = dict(bos_token_id=model.BOS, eos_token_id=model.EOS, pad_token_id=model.PAD, max_new_tokens=4)
    greedy = names["greedy_decode"](model, source, **ids)[0]
    assert greedy.tolist() == [model.BOS, model.A, model.A, model.EOS] and math.isclose(
        model.probability_of(greedy), 0.3
    )
    return model.probability_of(names["beam_search"](model, source, num_beams=2, **ids)[0])
