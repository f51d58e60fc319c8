"""The catalog's mistakes in `seq2seq`."""

from autograder.engine.build.mistakes.mistake import entries

MISTAKES = entries(
    "seq2seq",
    (
        "source padding not passed to cross-attention",
        [
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask)",
            )
        ],
    ),
    (
        "target padding not passed to the decoder",
        [
            (
                "self.decoder(decoder_input_ids, memory, decoder_attention_mask, attention_mask)",
                "self.decoder(decoder_input_ids, memory, None, attention_mask)",
            )
        ],
    ),
    (
        "finished rows not padded",
        [("next_token = next_token.masked_fill(finished, pad_token_id)", "next_token = next_token")],
    ),
    (
        "decoding never stops early",
        [("        if finished.all():\n            break\n", "")],
    ),
    (
        "EOS ignored",
        [("finished |= next_token == eos_token_id", "pass")],
    ),
    (
        "next token read from the first position",
        [("hidden_states[:, -1]", "hidden_states[:, 0]")],
    ),
    (
        "BOS left out of the result",
        [("    return tokens\n", "    return tokens[:, 1:]\n")],
    ),
    (
        "encoder output detached",
        [
            (
                "memory = self.encoder(input_ids, attention_mask)  # (B, S, D)\n        hidden_states",
                "memory = self.encoder(input_ids, attention_mask).detach()\n        hidden_states",
            )
        ],
    ),
)
