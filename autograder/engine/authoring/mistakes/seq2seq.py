"""The catalog's mistakes in `seq2seq`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

MISTAKES = entries(
    "seq2seq",
    Mistake(
        "source padding not passed to cross-attention",
        says="the decoder is not given the source's attention_mask, so it attends to the source's padding; pass "
        "attention_mask as encoder_attention_mask.",
        edits=[
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask)",
            )
        ],
    ),
    Mistake(
        "target padding not passed to the decoder",
        says="the decoder is not given decoder_attention_mask; pass it as the decoder's attention_mask.",
        edits=[
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, None, attention_mask)",
            )
        ],
    ),
    Mistake(
        "finished rows not padded",
        says="a row goes on generating after its EOS; from then on append pad_token_id to it.",
        edits=[("next_token = next_token.masked_fill(finished, pad_token_id)", "next_token = next_token")],
    ),
    Mistake(
        "decoding never stops early",
        says="decoding always runs max_new_tokens steps; stop as soon as every row has emitted EOS.",
        edits=[("        if finished.all():\n            break\n", "")],
    ),
    Mistake(
        "EOS ignored",
        says="EOS is never noticed: rows are neither padded nor stopped; mark a row finished once it emits "
        "eos_token_id, pad it from then on, and stop when every row has finished.",
        edits=[("finished |= next_token == eos_token_id", "pass")],
    ),
    Mistake(
        "next token read from the first position",
        says="the next token is read from the first position's logits; read it from the last position, "
        "hidden_states[:, -1].",
        edits=[("hidden_states[:, -1]", "hidden_states[:, 0]")],
    ),
    Mistake(
        "BOS left out of the result",
        says="the result leaves out the BOS token it started from; return bos, then the generated tokens.",
        edits=[("    return tokens\n", "    return tokens[:, 1:]\n")],
    ),
    Mistake(
        "encoder output detached",
        says="the encoder's output is detached in the model's forward, so no gradient reaches the encoder and only "
        "the decoder would learn; keep memory in the graph.",
        edits=[
            (
                "memory = self.encoder(input_ids, attention_mask)  # (B, S, D)\n        hidden_states",
                "memory = self.encoder(input_ids, attention_mask).detach()\n        hidden_states",
            )
        ],
    ),
)
