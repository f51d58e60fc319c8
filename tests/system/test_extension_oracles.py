"""The course extensions' references (solutions/training.py, solutions/generation.py) against the libraries that do
the same jobs, as CONTRACT.md's "Course extensions" names them: torch's clip_grad_norm_, Hugging Face's linear
schedule with warm-up, an EncoderDecoderModel's own loss and an SGD step, Hugging Face's temperature, top-k and top-p
logits processors, and its generate() with beams. In process, on small seeded models built offline."""

import copy
from types import SimpleNamespace

import pytest
import torch
from transformers import BertLMHeadModel, BertModel, EncoderDecoderModel, get_linear_schedule_with_warmup

from autograder.engine.authoring import case_files
from autograder.engine.authoring.builder import CONFIG, decoder_config
from autograder.engine.authoring.cases.generation import BOS, hf_beam_search, hf_sampling_probabilities
from autograder.engine.child import runtime
from autograder.engine.judge import hf

PAD = 3
DECODER = decoder_config(CONFIG, vocab_size=36, num_hidden_layers=1)
FLOATS = (torch.float64, torch.float32)


@pytest.fixture(scope="module")
def reference():
    return case_files.reference()


def models(reference, seed, dtype=torch.float64, training=False):
    """(Hugging Face's EncoderDecoderModel with seeded weights, the reference's Seq2SeqTransformer holding them),
    both in eval mode. For training, without dropout, and with the decoder's output projection apart from its
    token embeddings (Hugging Face ties them unless told not to; the kit's LanguageModelHead has its own), so that
    one step moves the same weights the same way in both."""
    encoder, decoder = CONFIG, DECODER
    if training:
        encoder = hf.bert_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        decoder = decoder_config(encoder, vocab_size=DECODER.vocab_size, num_hidden_layers=1, tie_word_embeddings=False)
    theirs = hf.randomize(EncoderDecoderModel(encoder=BertModel(encoder), decoder=BertLMHeadModel(decoder)), seed)
    theirs = theirs.to(dtype).eval()
    ours = reference["Seq2SeqTransformer"](*(SimpleNamespace(**hf.spec_config(c)) for c in (encoder, decoder)))
    runtime.load_parameters(ours, {name: value.numpy() for name, value in spec_state(reference, theirs).items()})
    return theirs, ours.to(dtype).eval()


def spec_state(reference, theirs):
    """{SPEC name: tensor} of an EncoderDecoderModel's weights, named as the reference's Seq2SeqTransformer names them."""
    configs = (theirs.config.encoder, theirs.config.decoder)
    return hf.to_spec(
        theirs.state_dict(),
        hf.spec_shapes(reference["Seq2SeqTransformer"], *configs),
        {"encoder.": "encoder.", "decoder.bert.": "decoder."},
        decoders=("decoder.bert.",),
        lm_head={"decoder.": "lm_head."},
    )


def padded_source(generator, batch, length=6):
    """Source ids (B, S) and a 0/1 mask in which the first row is whole and the others padded at random."""
    source = torch.randint(4, CONFIG.vocab_size, (batch, length), generator=generator)
    lengths = torch.randint(3, length + 1, (batch,), generator=generator)
    lengths[0] = length
    return source, (torch.arange(length)[None] < lengths[:, None]).long()


# training


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_gradient_norm_equals_torchs_clip_grad_norm(reference, dtype, max_norm):
    generator = torch.Generator().manual_seed(int(max_norm))
    shapes = [(3, 4), (5,), (2, 3, 2), (7,)]
    parameters = [torch.randn(shape, generator=generator, dtype=dtype, requires_grad=True) for shape in shapes]
    for parameter in parameters[:3]:  # the last has no gradient: left out of the norm
        parameter.grad = torch.randn(parameter.shape, generator=generator, dtype=dtype)
    theirs = copy.deepcopy(parameters)
    norm = reference["clip_gradient_norm"](iter(parameters), max_norm)  # a generator, as model.parameters() is
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm)
    assert norm.dtype == expected.dtype and torch.allclose(norm, expected, rtol=0, atol=0)
    for ours, torchs in zip(parameters, theirs, strict=True):
        assert (ours.grad is None) == (torchs.grad is None)
        # torch scales by min(1, max_norm / (norm + 1e-6)) always; the contract only when norm exceeds max_norm,
        # where the two are the same product.
        assert ours.grad is None or torch.equal(ours.grad, torchs.grad)
    assert (norm > max_norm) == (max_norm == 0.5), "one case clips, the other does not"


def test_learning_rate_equals_hugging_faces_linear_schedule_with_warm_up(reference):
    peak, total = 0.02, 40
    for warmup in (0, 1, 10):
        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=peak)
        schedule = get_linear_schedule_with_warmup(optimizer, warmup, total)
        for step in range(1, total + 1):
            optimizer.step()
            schedule.step()  # the scheduler's step count is the contract's step, counted from 1
            assert reference["learning_rate"](step, peak, warmup, total) == pytest.approx(
                optimizer.param_groups[0]["lr"], rel=1e-12, abs=1e-15
            ), (warmup, step)


# Hugging Face warns that its loss moved into EncoderDecoderModel in 4.12: the loss it computes is the one compared.
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("max_norm", [None, 0.25])
def test_training_step_moves_the_weights_as_an_encoder_decoder_models_own_loss_and_sgd_do(reference, max_norm):
    """The loss of EncoderDecoderModel(labels=...) shifts the labels right from BOS and ignores -100: the target
    with its padding ignored. One SGD step each from the same weights, after gradients left over from earlier."""
    theirs, ours = models(reference, seed=7, training=True)
    generator = torch.Generator().manual_seed(7)
    source, source_mask = padded_source(generator, 3)
    target = torch.randint(4, DECODER.vocab_size, (3, 5), generator=generator)
    target[1, 3:], target[2, 1:] = PAD, PAD
    theirs.config.decoder_start_token_id, theirs.config.pad_token_id = BOS, PAD
    for model in (theirs, ours):
        for parameter in model.parameters():
            parameter.grad = torch.randn(parameter.shape, generator=generator, dtype=parameter.dtype)
    optimizers = [torch.optim.SGD(model.parameters(), lr=0.1) for model in (theirs, ours)]
    before = target.clone()
    loss = reference["training_step"](
        ours, optimizers[1], (source, source_mask, target), bos_token_id=BOS, pad_token_id=PAD, max_norm=max_norm
    )
    theirs.train()
    optimizers[0].zero_grad()
    expected = theirs(input_ids=source, attention_mask=source_mask, labels=target.masked_fill(target == PAD, -100)).loss
    expected.backward()
    norm = torch.nn.utils.clip_grad_norm_(theirs.parameters(), max_norm) if max_norm else None
    optimizers[0].step()
    assert torch.equal(target, before) and ours.training
    assert loss == pytest.approx(expected.item(), rel=1e-12)
    assert norm is None or norm > max_norm, "the clipping case clips"
    after = spec_state(reference, theirs)
    assert after.keys() == ours.state_dict().keys()
    for name, value in ours.state_dict().items():
        assert torch.allclose(value, after[name], rtol=0, atol=1e-12), name


# generation


def sampling_logits(dtype):
    """(B, V) logits: a plain row, a row whose six largest tie (top-k's boundary inside the tie), and a row with one
    token far above the rest (top-p keeps it alone). No top-p threshold below falls inside the tie."""
    logits = 2 * torch.randn(3, 30, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    logits[1, :6] = logits[1].max() + 1
    logits[2, 7] = logits[2].max() + 12
    return logits.to(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"),
    [(1.0, None, None), (0.7, 4, None), (1.3, None, 0.9), (0.5, 8, 0.8), (2.0, 3, 0.5), (1.0, 3, 0.99)],
)
def test_sampling_probabilities_equal_hugging_faces_processors(reference, dtype, temperature, top_k, top_p):
    logits = sampling_logits(dtype)
    expected = hf_sampling_probabilities(logits, temperature, top_k, top_p)
    got = reference["sampling_probabilities"](logits, temperature, top_k, top_p)
    assert got.dtype == dtype and torch.equal(got > 0, expected > 0)
    assert torch.allclose(got, expected, rtol=0, atol=1e-6 if dtype == torch.float32 else 1e-12)
    if top_k is not None:  # the tie at the boundary is kept whole, as Hugging Face keeps it
        assert int((got[1] > 0).sum()) == 6 if top_p is None else int((got[1] > 0).sum()) <= 6
    if top_p is not None and top_p < 0.99:
        assert int((got[2] > 0).sum()) == 1, "the dominant token alone reaches top_p"


def test_sample_next_is_one_batched_draw_that_a_seeded_generator_repeats(reference):
    logits = sampling_logits(torch.float64)
    draws = [
        reference["sample_next"](logits, 0.8, 5, 0.9, generator=torch.Generator().manual_seed(11)) for _ in range(2)
    ]
    probabilities = hf_sampling_probabilities(logits, 0.8, 5, 0.9)
    expected = torch.multinomial(probabilities, 1, generator=torch.Generator().manual_seed(11))[:, 0]
    assert draws[0].dtype == torch.long and torch.equal(draws[0], draws[1]) and torch.equal(draws[0], expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_attend_with_cache_equals_causal_attention_over_the_whole_sequence(reference, dtype):
    config = SimpleNamespace(**hf.spec_config(CONFIG))
    attention = reference["MultiHeadAttention"](config).to(dtype).eval()
    hidden = torch.randn(2, 7, CONFIG.hidden_size, generator=torch.Generator().manual_seed(5), dtype=dtype)
    with torch.no_grad():
        whole, _ = attention(hidden, reference["causal_mask"](7))
        cache, rows = {}, []
        for start, end in ((0, 4), (4, 5), (5, 6), (6, 7)):  # the prompt, then one position at a time
            rows.append(reference["attend_with_cache"](attention, hidden[:, start:end], cache))
            heads = CONFIG.num_attention_heads
            assert cache["key"].shape == cache["value"].shape == (2, heads, end, CONFIG.hidden_size // heads)
    tolerance = 1e-5 if dtype == torch.float32 else 1e-12
    assert torch.allclose(torch.cat(rows, dim=1), whole, rtol=0, atol=tolerance)


def beam_cases():
    """Twenty searches: four models, five shapes each (batch, beams, length penalty, steps)."""
    shapes = [(3, 3, 1.0, 8), (2, 4, 0.6, 10), (1, 2, 1.5, 6), (3, 2, 2.0, 9), (4, 3, 0.0, 7)]
    return [(seed, *shape) for seed in range(4) for shape in shapes]


def test_beam_search_equals_hugging_faces_generate_with_beams_on_twenty_searches(reference):
    """One test for the twenty, so that it can hold them to cover what matters: hypotheses that end at EOS at
    different steps, and rows whose best hypothesis never does."""
    ends = set()
    built = {}
    for seed, batch, beams, length_penalty, max_new_tokens in beam_cases():
        theirs, ours = built.setdefault(seed, models(reference, seed))
        source, mask = padded_source(torch.Generator().manual_seed(100 * seed + batch * beams), batch)
        # The EOS is the token the searches without one emit most, so that hypotheses end at different steps.
        free = hf_beam_search(theirs, source, mask, None, 2, beams, length_penalty, max_new_tokens)[:, 1:].flatten()
        eos = max(range(4, DECODER.vocab_size), key=lambda token: int((free == token).sum()))
        expected = hf_beam_search(theirs, source, mask, eos, PAD, beams, length_penalty, max_new_tokens)
        got = reference["beam_search"](
            ours,
            source,
            mask,
            num_beams=beams,
            bos_token_id=BOS,
            eos_token_id=eos,
            pad_token_id=PAD,
            max_new_tokens=max_new_tokens,
            length_penalty=length_penalty,
        )
        case = f"seed {seed}, batch {batch}, {beams} beams, length_penalty {length_penalty}"
        assert got.dtype == torch.long and got.shape == expected.shape and torch.equal(got, expected), case
        ends |= {row.index(eos) if eos in row else None for row in expected[:, 1:].tolist()}
    assert None in ends and len(ends - {None}) >= 3, ends
