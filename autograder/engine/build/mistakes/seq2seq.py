"""The catalog's mistakes in `seq2seq`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "seq2seq",
    (
        "source padding not passed to cross-attention",
        "the decoder is not given the source's attention_mask, "
        "so it attends to the source's padding; pass attention_mask as encoder_attention_mask.",
        [
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask)",
            )
        ],
    ),
    (
        "target padding not passed to the decoder",
        "the decoder is not given decoder_attention_mask; pass it as the decoder's attention_mask.",
        [
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, None, attention_mask)",
            )
        ],
    ),
    (
        "finished rows not padded",
        "a row goes on generating after its EOS; from then on append pad_token_id to it.",
        [("next_token = next_token.masked_fill(finished, pad_token_id)", "next_token = next_token")],
    ),
    (
        "decoding never stops early",
        "decoding always runs max_new_tokens steps; stop as soon as every row has emitted EOS.",
        [("        if finished.all():\n            break\n", "")],
    ),
    (
        "EOS ignored",
        "EOS is never noticed: rows are neither padded nor stopped; mark a row finished once it "
        "emits eos_token_id, pad it from then on, and stop when every row has finished.",
        [("finished |= next_token == eos_token_id", "pass")],
    ),
    (
        "next token read from the first position",
        "the next token is read from the first position's logits; "
        "read it from the last position, hidden_states[:, -1].",
        [("hidden_states[:, -1]", "hidden_states[:, 0]")],
    ),
    (
        "BOS left out of the result",
        "the result leaves out the BOS token it started from; return bos, then the generated tokens.",
        [("    return tokens\n", "    return tokens[:, 1:]\n")],
    ),
    (
        "encoder output detached",
        "the encoder's output is detached in the model's forward, so no gradient reaches the "
        "encoder and only the decoder would learn; keep memory in the graph.",
        [
            (
                "memory = self.encoder(input_ids, attention_mask)  # (B, S, D)\n        hidden_states",
                "memory = self.encoder(input_ids, attention_mask).detach()\n        hidden_states",
            )
        ],
    ),
)
