"""Part 10, the language model of the student's own: its text ships and is small, its model's and its loop's
references pass the notebook's checks and common mistakes fail them, the prose's sampling numbers are what the reference computes, the
key-value cache computes what the model does, and top_k=1 is greedy. (That it learns, trained here and run in a
kernel, and that the notebook scores generation's points: tests/system/test_language_model.py.)"""

import pytest
import torch
from support.breakout_facts import language_model, language_model_with, reference
from torch.nn import functional as F

from autograder.course import language_model as helpers
from autograder.course import notebooks
from autograder.course.public import Failed, NotStarted, config


def test_the_text_ships_under_a_megabyte_with_its_source_and_licence():
    assert helpers.CORPUS.stat().st_size < 1_000_000
    text = helpers.corpus()
    assert text.isascii() and "HAMLET." in text and "Romeo." in text
    readme = (helpers.CORPUS.parent / "README.md").read_text()
    assert "public domain" in readme and "shakespeare 0.6" in readme and "Project Gutenberg" in readme


def test_characters_round_trip_and_number_in_sorted_order():
    characters = helpers.Characters(helpers.corpus())
    assert characters.decode(characters.encode("To be, or not to be")) == "To be, or not to be"
    # What the notebook's prose tells a student to check by hand.
    assert characters.encode("To be").tolist() == [37, 60, 1, 47, 50] and characters.index["A"] == 18
    prose = " ".join((notebooks.PARTS / "10_language_model.md").read_text().split())
    assert "so `'A'` is 18 and `'T'`, nineteen letters later, is 37" in prose


def test_the_positions_the_prose_counts_are_those_generate_runs():
    """The KV cache's worked example: the prompt is HAMLET. and a newline, 113 tokens follow."""
    prompt, new = len("HAMLET.\n"), 113
    without, with_cache = sum(prompt + i for i in range(new)), prompt + new - 1
    prose = " ".join((notebooks.PARTS / "10_language_model.md").read_text().split())
    assert f"P, N = {prompt}, {new}" in prose and f"= {without:,}, against {with_cache}." in prose
    assert prompt + new <= 128, "the model has 128 positions"


def test_the_reference_passes_the_models_check(capsys):
    helpers.check_char_lm(language_model()["CharLM"])
    assert "✗" not in capsys.readouterr().out


def test_the_sampling_numbers_the_prose_works_out_are_the_references():
    """The calculator examples of temperature, top-k and top-p, through the reference's sampling_probabilities."""
    probabilities = reference()["sampling_probabilities"]
    z = torch.tensor([[2.0, 1.0, 0.0, -1.0]], dtype=torch.float64)
    prose = " ".join((notebooks.PARTS / "10_language_model.md").read_text().split())
    first = {
        (tau, k, p): probabilities(z, tau, k, p)[0, 0].item()
        for tau, k, p in [(1.0, None, None), (0.5, None, None), (1.0, 2, None), (1.0, None, 0.9), (1.0, None, 0.8)]
    }
    assert f"= 7.389 / 11.475 = {first[1.0, None, None]:.3f};" in prose
    assert f"= 54.60 / 63.12 = {first[0.5, None, None]:.3f}." in prose
    assert f"e / (e + 1) = {first[1.0, 2, None]:.3f} for the first" in prose
    sums = F.softmax(z[0], dim=-1).cumsum(dim=-1).tolist()
    assert f"The sums of the largest are {sums[0]:.3f}, {sums[1]:.3f}, {sums[2]:.3f} and 1." in prose
    assert sums[1] < 0.9 <= sums[2] and sums[1] >= 0.8, "top-p 0.9 keeps three tokens, top-p 0.8 two"
    assert f"e² / (e² + e + 1) = 7.389 / 11.107 = {first[1.0, None, 0.9]:.3f}." in prose
    assert torch.equal(probabilities(z, 1.0, None, 0.8), probabilities(z, 1.0, 2, None)), "top-p 0.8 is top-2 here"
    tail = torch.arange(20, 0, -1, dtype=torch.float64)  # twenty unlikely tokens, no two tied
    sure = torch.cat([torch.tensor([0.95], dtype=torch.float64), 0.05 * tail / tail.sum()])[None].log()
    assert (probabilities(sure, 1.0, None, 0.9) > 0).sum() == 1 and (probabilities(sure, 1.0, 10, None) > 0).sum() == 10
    assert "a first probability of 0.95 is kept alone under top-p = 0.9, where top-k = 10 would keep nine" in prose


MISTAKES = {
    "no causal mask": ("check_char_lm", "CharLM", ("layer(hidden_states, mask)", "layer(hidden_states)")),
    "the layers computed but not used": (
        "check_char_lm",
        "CharLM",
        (
            "hidden_states = layer(hidden_states, mask)",
            "last = layer(hidden_states, mask)\n        hidden_states = hidden_states",
        ),
    ),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_the_checks_fail_on_a_common_mistake(mistake, capsys):
    check, name, edit = MISTAKES[mistake]
    names = language_model_with(edit)
    with pytest.raises(Failed):
        getattr(helpers, check)(names[name])
    assert "✗" in capsys.readouterr().out


# Loops that students write, each with the property of check_generate that the check's first failure names.
WRONG_LOOPS = {
    "the whole argmax row appended": (
        "new = sample_next(logits[:, -1], temperature, top_k, top_p, generator)[:, None]  # (B, 1)",
        "new = logits.argmax(-1)",
        "the result is (B, P + N)",
    ),
    "the first row sampled, not the last": (
        "new = sample_next(logits[:, -1], temperature, top_k, top_p, generator)[:, None]  # (B, 1)",
        "new = sample_next(logits[:, 0], temperature, top_k, top_p, generator)[:, None]",
        "a seeded generator draws",
    ),
    "eval mode forgotten": ("    model.eval()\n    caches", "    caches", "it writes in eval mode"),
    "gradients recorded": (
        "    with torch.no_grad():\n        for _ in range(new_tokens):",
        "    if True:\n        for _ in range(new_tokens):",
        "it writes in eval mode, without gradients",
    ),
    "the generator not passed on": (
        "top_p, generator)[:, None]  # (B, 1)",
        "top_p)[:, None]  # (B, 1)",
        "a seeded generator draws",
    ),
    "the whole sequence fed to the cache": (
        "next_logits(model, new, caches) if cached",
        "next_logits(model, ids, caches) if cached",
        "the cached path runs one new token a step",
    ),
    "the prompt dropped": ("    return ids\n", "    return ids[:, prompt_ids.size(1) :]\n", "the result is (B, P + N)"),
    "no position limit": (
        "    if prompt_ids.size(1) + new_tokens > limit:\n        raise",
        "    if False:\n        raise",
        "more tokens than the model's positions",
    ),
}


def test_the_reference_loop_passes_its_check(capsys):
    names = language_model()
    helpers.check_generate(names["generate"], names["sample_next"], names["CharLM"])
    assert "generate: all 6 checks passed" in capsys.readouterr().out


def test_the_loops_check_on_the_stub_says_it_is_not_started():
    def generate(model, prompt_ids, new_tokens, **sampling):
        raise NotImplementedError

    names = language_model()
    with pytest.raises(NotStarted, match="generate cannot run yet"):
        helpers.check_generate(generate, names["sample_next"], names["CharLM"])


@pytest.mark.parametrize("loop", WRONG_LOOPS)
def test_the_loops_check_fails_a_wrong_loop_on_its_property(loop, capsys):
    """The first line the check prints is the property the wrong loop breaks, its sentence naming no code."""
    old, new, first = WRONG_LOOPS[loop]
    names = language_model_with((old, new))
    with pytest.raises(Failed):
        helpers.check_generate(names["generate"], names["sample_next"], names["CharLM"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"✗ {first}"), printed
    assert not any(code in printed[0] for code in ("torch.", ".eval()", "no_grad", "[:, -1]")), printed[0]


def _model(seed=0):
    torch.manual_seed(seed)
    cfg = config(vocab_size=23, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
    return language_model()["CharLM"](cfg).eval()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_cached_and_uncached_logits_are_equal(dtype):
    names, model = language_model(), _model().to(dtype)
    ids = torch.randint(0, 23, (3, 15), generator=torch.Generator().manual_seed(1))
    caches = [{} for _ in model.layers]
    with torch.no_grad():
        whole = model(ids)
        pieces = [names["next_logits"](model, ids[:, :5], caches)]
        pieces += [names["next_logits"](model, ids[:, t : t + 1], caches) for t in range(5, 15)]
    # float64: rounding only; float32: the same sums in another order (the cache splits the matrix products).
    tolerance = {"rtol": 0, "atol": 1e-12} if dtype == torch.float64 else {"rtol": 1e-5, "atol": 1e-5}
    torch.testing.assert_close(torch.cat(pieces, dim=1), whole, **tolerance)


def test_top_k_one_is_greedy_with_or_without_the_cache():
    names, model = language_model(), _model()
    prompt = torch.randint(0, 23, (2, 4), generator=torch.Generator().manual_seed(2))
    greedy = prompt
    with torch.no_grad():
        for _ in range(12):
            greedy = torch.cat([greedy, model(greedy)[:, -1].argmax(-1, keepdim=True)], dim=1)
    for cached in (False, True):
        for temperature in (0.3, 3.0):
            written = names["generate"](model, prompt, 12, temperature=temperature, top_k=1, cached=cached)
            assert torch.equal(written, greedy), (cached, temperature)


def test_generate_refuses_more_tokens_than_positions():
    with pytest.raises(ValueError, match="more than the model's 20 positions"):
        language_model()["generate"](_model(), torch.zeros(1, 5, dtype=torch.long), 16)
