"""Part 10, the language model of the student's own: its text ships and is small, its exercises' reference
passes the notebook's checks and common mistakes fail them, the key-value cache computes what the model does, and
top_k=1 is greedy. (That it learns, trained here and run in a kernel: tests/system/test_language_model.py.)"""

import pytest
import torch
from support.breakout_facts import language_model, language_model_with, reference

from autograder.course import language_model as helpers
from autograder.course import notebooks
from autograder.course.public import Failed, config


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


def test_the_reference_passes_every_check_of_the_notebook(capsys):
    names = language_model()
    helpers.check_char_lm(names["CharLM"])
    helpers.check_sampling(names["sample_next"])
    helpers.check_kv_cache(names["attend_with_cache"], reference()["MultiHeadAttention"])
    assert "✗" not in capsys.readouterr().out


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
    "no temperature": ("check_sampling", "sample_next", ("logits = logits / temperature", "logits = logits")),
    "top-k keeps one too many": ("check_sampling", "sample_next", ("values[:, -1:]", "values[:, -1:] - 1e-9 - 1")),
    "no generator": ("check_sampling", "sample_next", ("1, generator=generator)", "1)")),
    "keys not appended": (
        "check_kv_cache",
        "attend_with_cache",
        ('cache["key"], cache["value"] = keys, values', "pass"),
    ),
    "the prompt without its causal mask": ("check_kv_cache", "attend_with_cache", (".tril(S)", "")),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_the_checks_fail_on_a_common_mistake(mistake, capsys):
    check, name, edit = MISTAKES[mistake]
    names = language_model_with(edit)
    arguments = [names[name]] + ([reference()["MultiHeadAttention"]] if check == "check_kv_cache" else [])
    with pytest.raises(Failed):
        getattr(helpers, check)(*arguments)
    assert "✗" in capsys.readouterr().out


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


def test_a_draw_shaped_b_by_1_is_named_and_the_checks_it_breaks_say_they_follow(capsys):
    """One shape bug in sample_next made five checks fail, two of them about code that was right (issue 46)."""
    names = language_model_with(("generator=generator).squeeze(-1)", "generator=generator)"))
    with pytest.raises(Failed) as failure:
        helpers.check_sampling(names["sample_next"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"✗ {helpers.ONE_PER_ROW}: returned (50, 1), a column"), lines
    own = [line for line in lines[1:] if line.startswith("✗ ") and "follows from" not in line]
    follow = [line for line in lines if f'follows from "{helpers.ONE_PER_ROW}" failing' in line]
    assert own == [] and len(follow) == 4 and failure.value.passed == 1, lines
