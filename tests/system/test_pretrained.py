"""Pretrained parity: the check against a small BERT checkpoint that the test saves itself runs a submission's encoder
in the jail, and passes the reference and fails a broken encoder with its hint; and the checkpoint that ships with
the course, all-MiniLM-L6-v2, loaded offline from its package's folder into the reference, computes what Hugging
Face and sentence-transformers do and what part 5 and its questions say (a real model through two libraries,
seconds each). (A checkpoint that is not there: tests/unit/test_pretrained.py.)"""

import ast
import re

import pytest
import torch
from support.breakout_facts import ATTENTION_SENTENCE, minilm_attentions, strongest
from support.helpers import submission, tiny_checkpoint
from support.hint_evidence import shown

from autograder.breakout import bank
from autograder.course import jupyter, minilm, notebooks
from autograder.course.public import NotStarted
from autograder.engine.contract import spec
from autograder.engine.contract.errors import StudentError
from autograder.engine.judge.pretrained import SENTENCES, check_pretrained
from autograder.engine.judge.tolerances import tolerance

PART = notebooks.PARTS / "05_encoder_heads.md"
FLOAT32 = tolerance("float32", "encoder")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory.mktemp("tiny-bert"), SENTENCES)


def test_reference_encoder_matches_the_checkpoint(checkpoint):
    result = check_pretrained(spec.SOLUTIONS, checkpoint)
    assert [t.passed for t in result.tests] == [True, True], result.feedback()
    assert shown(result.feedback()) == set()
    assert (result.points, result.tag) == (0, "encoder")


def test_broken_encoder_fails_the_checkpoint(checkpoint, tmp_path):
    path = submission(
        tmp_path / "s",
        [("encoder", "hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")],
    )
    result = check_pretrained(path, checkpoint)
    assert not any(t.passed for t in result.tests)
    assert "differ from the expected values" in result.feedback()
    assert shown(result.feedback()) == {"encoder.pretrained"}


# --- all-MiniLM-L6-v2, the course's own checkpoint -----------------------------------------------------------


def notebook_sentences():
    """The SENTENCES that part 5's cells encode and rank, read from the part itself."""
    for block in re.findall(r"```python\n(.*?)```", PART.read_text(), re.S):
        for node in ast.parse(block).body:
            if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["SENTENCES"]:
                return ast.literal_eval(node.value)
    raise AssertionError("part 5 defines no SENTENCES")


def encoder_of(path):
    return jupyter.load_names(path)[0]["TransformerEncoder"]


def hidden_states(TransformerEncoder, sentences, dtype=torch.float32):
    """(the encoder's (B, T, D) with MiniLM's weights, Hugging Face's in float64: the truth), and the batch."""
    model = minilm.pretrained(TransformerEncoder)
    batch = model.tokenizer(sentences, padding=True, return_tensors="pt")
    with torch.no_grad():
        yours = model.encoder.to(dtype)(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"])
        truth = model.bert.double()(**batch).last_hidden_state
    model.bert.float()  # the cached model goes back as part 5 uses it
    return yours, truth, batch


def test_reference_with_minilm_matches_hugging_face_within_the_float32_tolerance():
    yours, truth, batch = hidden_states(encoder_of(spec.SOLUTIONS), notebook_sentences())
    assert batch["attention_mask"].min() == 0, "the sentences are padded, so the mask is exercised"
    torch.testing.assert_close(yours.double(), truth, rtol=FLOAT32.rtol, atol=FLOAT32.atol)


def test_mean_pooled_embeddings_match_sentence_transformers_and_rank_the_paraphrase_first():
    sentences = notebook_sentences()
    yours, _, batch = hidden_states(encoder_of(spec.SOLUTIONS), sentences)
    real = batch["attention_mask"].unsqueeze(-1).float()
    embeddings = torch.nn.functional.normalize((yours * real).sum(1) / real.sum(1), dim=-1)
    theirs = minilm.sentence_transformer(minilm.checkpoint()).encode(sentences, convert_to_tensor=True)
    torch.testing.assert_close(embeddings, theirs, rtol=FLOAT32.rtol, atol=FLOAT32.atol)
    similarity = (embeddings[1:] @ embeddings[0]).tolist()
    ranked = [s for _, s in sorted(zip(similarity, sentences[1:]), reverse=True)]
    assert ranked[:2] == ["Someone is strumming a guitar.", "A man is playing football."], ranked
    prose = " ".join(PART.read_text().split())
    assert 'The paraphrase ranks first, above "A man is playing football.", which shares more words' in prose


@pytest.mark.parametrize(
    "edit, shows",
    [
        (("encoder", "hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)"), 0.5),
        (("feedforward", "F.gelu(self.linear1(x))", 'F.gelu(self.linear1(x), approximate="tanh")'), 1e-3),
        (("layernorm", "torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)"), None),
    ],
    ids=["mask-ignored", "tanh-gelu", "eps-outside-the-root"],
)
def test_part_5_shows_a_broken_component_as_the_prose_says(tmp_path, capsys, edit, shows):
    """Part 5's prose: padding attended to moves the real tokens' hidden states by the number it gives (the padding
    rows' by about 1), the tanh GELU by a few thousandths, and eps outside the root shows nothing at eps 1e-12."""
    yours, truth, batch = hidden_states(encoder_of(submission(tmp_path / "s", [edit])), notebook_sentences())
    minilm.compare(yours, truth, "Hugging Face's BertModel")
    difference = (yours.double() - truth).abs()  # (B, T, D)
    largest = difference.max().item()
    said = capsys.readouterr().out
    if shows is None:
        assert "✓ equal" in said and "NOT" not in said
    else:
        assert "✗ NOT equal" in said and shows < largest < 10 * shows
    if edit[0] == "encoder":
        real = difference[batch["attention_mask"].bool()].max().item()
        prose = " ".join(PART.read_text().split())
        assert f"moves the real tokens' hidden states by up to {real:.2f} (" in prose, real
        assert round(largest) == 1 and "padding positions', which nothing downstream reads, by about 1" in prose


def test_an_unwritten_encoder_is_one_sentence_said_before_the_checkpoint_loads(tmp_path, monkeypatch):
    """The release notebook's cell waited seconds for BERT and its tokenizer to load before it said so."""
    stub = ("encoder", "hidden_states = self.embeddings(input_ids, token_type_ids)", "raise NotImplementedError()")
    monkeypatch.setattr(minilm, "_hugging_face", lambda folder: pytest.fail("the checkpoint was loaded for a stub"))
    with pytest.raises(NotStarted, match=r"^your encoder is not written yet: TransformerEncoder.forward still raises"):
        minilm.pretrained(encoder_of(submission(tmp_path / "s", [stub])))


def test_an_encoder_with_other_names_is_told_the_weights_do_not_fit(tmp_path):
    renamed = [
        ("encoder", "self.layers = nn.ModuleList", "self.blocks = nn.ModuleList"),
        ("encoder", "for layer in self.layers:", "for layer in self.blocks:"),
    ]
    with pytest.raises(StudentError, match="no SPEC name|has nothing for|do not fit"):
        minilm.pretrained(encoder_of(submission(tmp_path / "s", renamed)))


def weight(maps, tokens, source, target):
    return maps[:, :, tokens.index(source), tokens.index(target)]  # (L, H)


def previous_token_weights(sentences):
    """Layer 0, head 2's mean weight on the previous token, per sentence (padding left out), to 2 decimals."""
    model = minilm.pretrained(encoder_of(spec.SOLUTIONS))
    batch = model.tokenizer(sentences, padding=True, return_tensors="pt")
    with torch.no_grad():
        head = model.bert(**batch, output_attentions=True).attentions[0][:, 2]  # (B, T, T)
    lengths = batch["attention_mask"].sum(-1).tolist()
    return [round(head[b].diagonal(offset=-1)[: n - 1].mean().item(), 2) for b, n in enumerate(lengths)]


def test_the_heads_part_5_and_its_questions_name_are_what_minilm_computes():
    """Every head and weight the prose and the breakout questions state, measured on Hugging Face's BertModel
    with MiniLM's weights (and part 5's own attention maps, asserted equal to it)."""
    tokens, maps = minilm_attentions(ATTENTION_SENTENCE)
    previous = maps.diagonal(offset=-1, dim1=-2, dim2=-1).mean(-1)  # (L, H)
    to_cls, to_sep = maps[:, :, 1:-1, 0].mean(-1), maps[:, :, 1:-1, -1].mean(-1)
    agreement = weight(maps, tokens, "are", "keys")
    assert [strongest(s) for s in (previous, to_cls, agreement)] == [(0, 2), (4, 5), (3, 1)]
    assert round(to_cls[4, 5].item(), 1) == 0.9 and 0.2 < to_sep.max() < 0.25  # "about a quarter"
    assert [round(weight(maps, tokens, "are", w)[3, 1].item(), 2) for w in ("keys", "cabinet")] == [0.79, 0.03]
    friends_tokens, friends = minilm_attentions("My friends from the village are coming.")
    assert round(weight(friends, friends_tokens, "are", "friends")[3, 1].item(), 2) == 0.30
    cat_tokens, cat = minilm_attentions("The cat sat on the mat because it was tired.")
    assert strongest(weight(cat, cat_tokens, "it", "cat")) == (5, 11)
    assert [round(m[0, 2].diagonal(offset=-1).mean().item(), 2) for m in (maps, friends, cat)] == [1.00] * 3
    assert previous_token_weights(notebook_sentences()) == [1.00] * len(notebook_sentences())
    prose = " ".join(PART.read_text().split())
    for said in (
        "Layer 0, head 2 puts all of every token's weight on the token before it",
        "Layer 4, head 5 puts about 0.9 of every word's weight on [CLS]",
        "none of its heads gives [SEP] more than about a quarter",
        'Layer 3, head 1 links "are" to "keys" (0.79) and hardly looks at "cabinet" (0.03)',
        'the same head gives "friends" only 0.30',
        'where does "it" look in layer 5, head 11?',
    ):
        assert said in prose, said
    questions = {q.id: " ".join(q.text.split()) for part in bank.load() for q in part.questions}
    assert "layer 0, head 2 of all-MiniLM-L6-v2 puts a weight of 1.00" in questions["previous_token_head"]
    assert '0.79 on "keys" and 0.03 on "cabinet"' in questions["one_sentence_is_an_anecdote"]
    assert 'gives "are" 0.30 on "friends"' in questions["one_sentence_is_an_anecdote"]


def test_the_cls_head_parks_on_a_short_value():
    """The prose's "a token whose value, in this head, is far shorter than the others'": layer 4, head 5's value
    at [CLS], through its share of the output projection, against every other token's."""
    model = minilm.pretrained(encoder_of(spec.SOLUTIONS))
    inputs = {}
    layer = model.encoder.layers[4].attention
    hook = layer.register_forward_hook(lambda module, args, result: inputs.update(x=args[0][0]))
    try:
        with torch.no_grad():
            model.encoder(model.tokenizer(ATTENTION_SENTENCE, return_tensors="pt")["input_ids"])
    finally:
        hook.remove()
    head = slice(5 * 32, 6 * 32)  # Dh = 384 / 12
    with torch.no_grad():
        lengths = (layer.value(inputs["x"])[:, head] @ layer.output.weight[:, head].T).norm(dim=-1)  # (T,)
    assert lengths[0] * 10 < lengths[1:].min(), lengths


def test_minilm_loads_with_no_network(monkeypatch):
    """Part 5 at a student's desk, or on a machine with no network: every connection refused, nothing cached."""
    import socket

    attempts = []

    def refused(*args, **kwargs):
        attempts.append(args)  # kept: a library may catch the error and fall back to its files
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    minilm._hugging_face.cache_clear()
    minilm.sentence_transformer.cache_clear()
    model = minilm.pretrained(encoder_of(spec.SOLUTIONS))
    assert model.sentence_transformer.encode(["A cat sleeps on the sofa."]).shape == (1, 384)
    assert attempts == []
