"""The cases of `generation`: the sampling distribution against the reference and Hugging Face's temperature, top-k and
top-p processors, seeded draws, attention over a cache call after call on the reference's MultiHeadAttention
(child/stateful.py), and beam search on a seeded reference Seq2SeqTransformer against Hugging Face's
generate(num_beams=...). Nothing is graded in train mode: generation runs without gradients (CONTRACT.md)."""

from typing import cast

import torch
from transformers import BertLMHeadModel, BertModel, EncoderDecoderModel
from transformers.generation.logits_process import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from autograder.engine.authoring.builder import (
    CONFIG,
    ODD_CONFIG,
    In,
    attention_mask,
    config_arg,
    decoder_config,
    float64,
    hf_run,
    randn,
    random_params,
)
from autograder.engine.authoring.mutants import instantiate
from autograder.engine.child import stateful
from autograder.engine.contract import messages
from autograder.engine.judge import hf

BOS = 1
DECODER = decoder_config(CONFIG, vocab_size=36, num_hidden_layers=1)
VOCABULARY = 30
# The least distance between top_p and the mass before any token: whether a token is kept is then the same in
# float32 and float64, and for every correct order of summing.
MARGIN = 1e-4


def build(b):
    probability_cases(b)
    draw_cases(b)
    cache_cases(b)
    beam_cases(b)


def probability_cases(b):
    for case_id, about, temperature, top_k, top_p in (
        ("temperature", "temperature 0.7 alone", 0.7, None, None),
        ("top-k", "top-k 4, with ties at the 4th largest", 1.3, 4, None),
        ("top-p", "top-p 0.9, one row with a dominant token", 1.0, None, 0.9),
        ("top-p-above", "top-p just above the mass of the 3 largest: the 4th is kept", 1.0, None, "above"),
        ("top-p-below", "top-p just below the mass of the 3 largest: the 4th is not", 1.0, None, "below"),
        ("combined", "temperature 0.8, top-k 8 then top-p 0.8", 0.8, 8, 0.8),
        ("greedy", "top-k 1, top-p 0.5, temperature 2", 2.0, 1, 0.5),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        logits = _logits(g, ties=top_p is None)
        if isinstance(top_p, str):  # one row, whose own mass sets the threshold, 10 margins away
            logits = logits[:1]
            mass = torch.softmax(logits[0].double(), dim=-1).sort(descending=True).values[:3].sum().item()
            top_p = mass + (10 if top_p == "above" else -10) * MARGIN
        kwargs = {"temperature": temperature, "top_k": top_k, "top_p": top_p}
        b.add(
            f"probabilities-{case_id}",
            about,
            "probabilities",
            "sampling_probabilities",
            args=[In("logits")],
            kwargs=kwargs,
            outputs=["probabilities"],
            inputs={"logits": logits},
            expected=[_probabilities(b, logits, kwargs)],
            train_outputs=[],
        )


def _logits(g, ties):
    """(4, VOCABULARY) float32-exact logits: a plain row; with ties, a row whose six largest tie and a row whose 2nd
    to 5th largest tie (plain rows without); and a row with one token far above the rest (top-p keeps it alone). A
    case with top-p has no ties: where its threshold fell inside one, which of the tied tokens a sort puts first
    would decide, and that is no one's to grade (tests/system/test_extension_oracles.py avoids them alike)."""
    logits = randn(g, 4, VOCABULARY, scale=2.0)
    if ties:
        logits[1, :6] = logits[1].max() + 1
        order = logits[2].argsort(descending=True)
        logits[2, order[1:5]] = logits[2, order[1]].item()
    logits[3, 7] = logits[3].max() + 12
    return logits


def _probabilities(b, logits, kwargs):
    """The reference's distribution in float64, held to Hugging Face's processors in both dtypes, and to a margin
    around every top-p threshold."""
    with float64():
        expected = b.reference["sampling_probabilities"](logits.double(), **kwargs)
    for dtype in (torch.float32, torch.float64):
        theirs = hf_sampling_probabilities(logits.to(dtype), **kwargs)
        mine = b.reference["sampling_probabilities"](logits.to(dtype), **kwargs)
        exact = 1e-6 if dtype == torch.float32 else 1e-12
        if not (torch.equal(mine > 0, expected > 0) and torch.equal(theirs > 0, expected > 0)):
            raise RuntimeError(f"{kwargs}: the tokens kept differ from Hugging Face's, or between dtypes ({dtype})")
        if not torch.allclose(mine.double(), theirs.double(), rtol=0, atol=exact):
            raise RuntimeError(f"{kwargs}: the reference's distribution is not Hugging Face's ({dtype})")
    if kwargs["top_p"] is not None:
        kept = logits.double() / kwargs["temperature"]
        if kwargs["top_k"] is not None:
            kth = kept.topk(kwargs["top_k"], dim=-1).values[:, -1:]
            kept = kept.masked_fill(kept < kth, float("-inf"))
        probabilities = torch.softmax(kept, dim=-1).sort(dim=-1, descending=True).values
        before = probabilities.cumsum(dim=-1) - probabilities
        if (before - kwargs["top_p"]).abs().min() < MARGIN:
            raise RuntimeError(f"{kwargs}: a token's mass before it is within {MARGIN} of top_p")
        # Tokens that tie are all kept or all dropped: which of them a sort puts first is no one's to grade.
        dropped = (before >= kwargs["top_p"])[:, 1:]
        tied = probabilities[:, 1:] == probabilities[:, :-1]
        if (tied & (dropped != (before >= kwargs["top_p"])[:, :-1])).any():
            raise RuntimeError(f"{kwargs}: top_p falls inside a tie")
    return expected


def hf_sampling_probabilities(logits, temperature, top_k, top_p):
    """The distribution generate(do_sample=True) draws from: its processors, in the contract's order, then a softmax;
    the oracle the cases' expected distributions are held to (tests/system/test_extension_oracles.py too)."""
    logits = TemperatureLogitsWarper(temperature)(None, logits)
    if top_k is not None:
        logits = TopKLogitsWarper(top_k)(None, logits)
    if top_p is not None:
        logits = TopPLogitsWarper(top_p)(None, logits)
    return torch.softmax(logits, dim=-1)


# Rows of the top-k 1 case: each one a draw that ignores top_k could still land on the arg-max by chance.
ARG_MAX_ROWS = 12


def draw_cases(b):
    """Seeded draws: the draw of the whole batch at once, which a generator with the same seed repeats. Each seed is
    one whose draws change where what the case names is left out (the filters, the temperature), so that a
    sample_next that ignores it draws other tokens. And top-k 1, which draws the arg-max whatever the generator: a
    plain call, without one."""
    filtered = {"temperature": 1.5, "top_k": 6, "top_p": 0.8}
    for case_id, about, kwargs, without in (
        (
            "draw",
            "temperature 1.5, top-k 6, top-p 0.8",
            filtered,
            [{"temperature": 1.5}, {**filtered, "temperature": 1}],
        ),
        ("draw-temperature", "temperature 0.5 alone", {"temperature": 0.5, "top_k": None, "top_p": None}, [{}]),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        logits = _logits(g, ties=kwargs["top_p"] is None)
        for attempt in range(100):
            seeded = {"generator": {stateful.SEEDED: b.seed(f"{case_id}/generator/{attempt}") % 2**31}}
            tokens = _draw(b, logits, {**kwargs, **seeded})
            if all(not torch.equal(_draw(b, logits, {**other, **seeded}), tokens) for other in without):
                break
        else:
            raise RuntimeError(f"{case_id}: no seed draws otherwise without what the case names")
        b.add(
            case_id,
            f"one seeded draw per row, {about}",
            "draw",
            "sample_next",
            args=[In("logits")],
            kwargs={**kwargs, **seeded},
            outputs=["tokens"],
            inputs={"logits": logits},
            expected=[tokens],
            train_outputs=[],
        )
    logits = randn(torch.Generator().manual_seed(b.seed("arg-max")), ARG_MAX_ROWS, VOCABULARY)
    # A sample_next that ignores top_k draws from the temperature's distribution with the global generator, whose
    # state no one grades: every row must make that draw unlikely to be the arg-max, whatever the state.
    unfiltered = torch.softmax(logits.double() / 0.7, dim=-1).amax(dim=-1).prod().item()
    if unfiltered > 1e-6:
        raise RuntimeError(f"arg-max: an unfiltered draw is the arg-max of every row with probability {unfiltered}")
    b.add(
        "arg-max",
        "top-k 1, temperature 0.7: the arg-max of each row, whatever the generator",
        "arg-max",
        "sample_next",
        args=[In("logits")],
        kwargs={"temperature": 0.7, "top_k": 1},
        outputs=["tokens"],
        inputs={"logits": logits},
        expected=[logits.argmax(dim=-1)],
        train_outputs=[],
    )


def _draw(b, logits, kwargs):
    """The reference's seeded draw in float64, which float32's must equal: the case is graded in both."""
    with float64():
        tokens = stateful.draw(b.reference["sample_next"], logits.double(), kwargs)
    in_float32 = stateful.draw(b.reference["sample_next"], logits, kwargs)
    assert isinstance(tokens, torch.Tensor) and isinstance(in_float32, torch.Tensor)  # the reference's own
    if not torch.equal(in_float32, tokens):
        raise RuntimeError(f"{kwargs}: the seeded draw differs between float32 and float64")
    return tokens


def cache_cases(b):
    """The prompt, then new positions a few at a time, on one cache: each call's output and the cache after it,
    held to the attention over the whole sequence with a causal mask."""
    for case_id, about, config, batch, spans in (
        ("cache", "a prompt of 4, then one position at a time", CONFIG, 2, [(0, 4), (4, 5), (5, 6), (6, 7)]),
        ("cache-steps", "one position at a time from the first, batch 3", CONFIG, 3, [(0, 1), (1, 2), (2, 3)]),
        ("cache-config", "a prompt of 3 then 2 positions at once, H=5", ODD_CONFIG, 1, [(0, 3), (3, 5), (5, 6)]),
    ):
        g = torch.Generator().manual_seed(b.seed(case_id))
        init = [config_arg(config)]
        params = random_params(b.reference["MultiHeadAttention"], init, b.seed(f"{case_id}/params"))
        hidden = randn(g, batch, spans[-1][1], config.hidden_size)
        attention = instantiate(b.reference["MultiHeadAttention"], init)
        attention.load_state_dict(params)
        attention = attention.double().eval()
        with float64():
            calls = stateful.cached(b.reference["attend_with_cache"], attention, hidden.double(), spans)
            whole, _ = attention(hidden.double(), b.reference["causal_mask"](spans[-1][1]))
        outputs = [call["output"] for call in calls]
        assert all(isinstance(output, torch.Tensor) for output in outputs)  # the reference's own
        if not torch.allclose(torch.cat(cast(list[torch.Tensor], outputs), dim=1), whole, rtol=0, atol=1e-12):
            raise RuntimeError(f"{case_id}: attention over the cache is not causal attention over the whole sequence")
        expected = {f"{name}{i}": call[name] for i, call in enumerate(calls) for name in ("output", "key", "value")}
        b.add(
            case_id,
            f"attention over a cache: {about}",
            "cache",
            "attend_with_cache",
            args=[],
            outputs=list(expected),
            inputs={"hidden_states": hidden},
            params=params,
            expected=list(expected.values()),
            meta={"spans": [list(span) for span in spans], "model": {"target": "MultiHeadAttention", "init": init}},
            train_outputs=[],
        )


# Batch, beams, length penalty, new tokens at most. The strong penalties on 4 and 5 beams are where the length a
# hypothesis is divided by decides between finished ones.
SEARCHES = ((3, 3, 1.0, 8), (2, 4, 0.6, 10), (2, 2, 1.5, 6), (4, 2, 2.0, 9), (3, 4, 2.0, 10), (3, 5, 2.5, 10))


def beam_cases(b):
    """Searches on one seeded model against Hugging Face's generate(num_beams=...): batches of 2 to 4, 2 to 4 beams,
    length penalties 0.6 to 2, the rows of each search ending at EOS at different steps, and some never. A model
    with random weights may emit one token over and over: the first seed whose searches do otherwise is taken."""
    init = [config_arg(CONFIG), config_arg(DECODER)]
    for attempt in range(20):
        model = hf_run(
            hf.randomize(
                EncoderDecoderModel(encoder=BertModel(CONFIG), decoder=BertLMHeadModel(DECODER)),
                b.seed(f"beam/{attempt}"),
            )
        )
        searches = [_search(b, model, *search) for search in SEARCHES]
        ends = set().union(*(_ends(expected, kwargs["eos_token_id"]) for _, expected, kwargs in searches))
        if None in ends and len(ends) >= 4 and all(len(_ends(e, k["eos_token_id"])) >= 2 for _, e, k in searches):
            break
    else:
        raise RuntimeError("no seed gave beam searches that end at EOS at different steps, and never")
    params = {
        k: v.float()
        for k, v in hf.to_spec(
            model.state_dict(),
            b.spec_shapes("Seq2SeqTransformer", CONFIG, DECODER),
            {"encoder.": "encoder.", "decoder.bert.": "decoder."},
            decoders=("decoder.bert.",),
            lm_head={"decoder.": "lm_head."},
        ).items()
    }
    ours = instantiate(b.reference["Seq2SeqTransformer"], init)
    ours.load_state_dict(params)
    ours = ours.double().eval()
    for (batch, beams, length_penalty, max_new_tokens), (inputs, expected, kwargs) in zip(SEARCHES, searches):
        case_id = f"beam-{batch}x{beams}"
        with float64():
            mine = b.reference["beam_search"](ours, inputs["input_ids"], inputs["attention_mask"], **kwargs)
        if not torch.equal(mine, expected):
            raise RuntimeError(f"{case_id}: the reference's beam search is not Hugging Face's generate")
        b.add(
            case_id,
            f"against generate(num_beams={beams}): batch {batch}, length_penalty {length_penalty:g}, "
            f"at most {max_new_tokens} new tokens",
            "generate",
            "beam_search",
            args=[{messages.OBJECT: "model"}, In("input_ids"), In("attention_mask")],
            kwargs=kwargs,
            outputs=["tokens"],
            inputs=inputs,
            expected=[expected],
            meta={"model": {"target": "Seq2SeqTransformer", "init": init}},
            params=params,
            # The float64 search alone: scores of two candidates a float32 rounding apart could swap there.
            dtypes=["float64"],
        )


def _search(b, model, batch, beams, length_penalty, max_new_tokens):
    """(inputs, Hugging Face's result, beam_search's kwargs) of one search. The EOS is the token, of those the search
    without one emits, whose rows end at the most different steps (never counting as one); the pad is one it never
    emits, so that a row left unpadded shows."""
    g = torch.Generator().manual_seed(b.seed(f"beam-{batch}x{beams}"))
    source = torch.randint(4, CONFIG.vocab_size, (batch, 6), generator=g)
    mask = attention_mask([6, *torch.randint(3, 7, (batch - 1,), generator=g).tolist()], 6)
    free = set(
        hf_beam_search(model, source, mask, None, 0, beams, length_penalty, max_new_tokens)[:, 1:].flatten().tolist()
    )
    pad = min(set(range(2, DECODER.vocab_size)) - free)
    searched = {
        eos: hf_beam_search(model, source, mask, eos, pad, beams, length_penalty, max_new_tokens)
        for eos in sorted(free - {BOS})
    }
    eos = max(searched, key=lambda token: len(_ends(searched[token], token)))
    kwargs = dict(
        num_beams=beams,
        bos_token_id=BOS,
        eos_token_id=eos,
        pad_token_id=pad,
        max_new_tokens=max_new_tokens,
        length_penalty=length_penalty,
    )
    return {"input_ids": source, "attention_mask": mask}, searched[eos], kwargs


def _ends(tokens, eos):
    """The steps at which the rows of a search's result emit EOS (None: never)."""
    return {row.index(eos) if eos in row else None for row in tokens[:, 1:].tolist()}


def hf_beam_search(model, source, mask, eos, pad, beams, length_penalty, max_new_tokens):
    """Hugging Face's generate() with beams, as beam_search's contract states it (early stopping, one sequence a row),
    from BOS; the oracle the cases' expected searches are held to (tests/system/test_extension_oracles.py too)."""
    with torch.no_grad():
        return model.generate(
            input_ids=source,
            attention_mask=mask,
            decoder_start_token_id=BOS,
            eos_token_id=eos,
            pad_token_id=pad,
            max_new_tokens=max_new_tokens,
            num_beams=beams,
            do_sample=False,
            early_stopping=True,
            length_penalty=length_penalty,
            num_return_sequences=1,
        )
