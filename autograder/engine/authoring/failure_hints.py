"""The hints under a failing output of each component, by topic: what the contract asks of it, and so how it is done
(each "Hint: ..." line of a failing check; the suites name the topic). Written here, where nothing ships;
`python -m autograder generate --part sentences` copies them to generated/failure_hints.json under the course's hints
setting, which the suites read (engine/judge/hints/failures.py); with none it copies none.
"""

import json

TOPICS: dict[str, dict[str, str]] = {
    "masking": {
        "causal": "True at [i, j] exactly where j <= i: the diagonal is included (torch.tril), and the dtype is torch.bool.",
        "padding": "True at real tokens (attention_mask == 1), shaped (B, 1, 1, S) so it broadcasts over heads and queries.",
    },
    "attention": {
        "weights": "weights = softmax(query @ key.transpose(-2, -1) / sqrt(Dh)) over the LAST dimension (S), "
        "with Dh = query.size(-1); blocked positions (mask False) must be filled with -inf before the softmax.",
        "output": "output = weights @ value.",
    },
    "layernorm": {
        "output": "normalise over the last dimension only: mean and BIASED variance (divide by D: unbiased=False), "
        "then weight * (x - mean) / sqrt(var + eps) + bias.",
        "eps": "with eps=0.5 the answer shows which eps is used and where it goes: (x - mean) / sqrt(var + self.eps), "
        "with the eps the module was built with (self.eps, never a constant), added to the variance under the root.",
        "fresh": "a new LayerNorm must start with weight = ones and bias = zeros, before any weights are loaded.",
    },
    "multihead": {
        "weights": "weights are (B, H, T, S), one (T, S) map per head: each projection split into heads as "
        ".view(B, T, H, Dh).transpose(1, 2) gives them; queries from hidden_states, keys and values from "
        "key_value_states when it is given.",
        "output": "merge the heads back with .transpose(1, 2).reshape(B, T, D), in head order, then apply the "
        "output projection (if weights pass, the mistake is after the attention).",
        "train": "in train mode dropout (self.dropout, p = attention_probs_dropout_prob) applies to the attention "
        "probabilities, after the softmax and before they weight the values: context = dropout(weights) @ v; "
        "nowhere else.",
    },
    "feedforward": {
        "output": "dropout(linear2(gelu(linear1(x)))) with the exact GELU, 0.5·x·(1 + erf(x / sqrt(2))) "
        "(F.gelu's default), not the tanh approximation and not ReLU.",
        "train": "in train mode dropout (p = hidden_dropout_prob) comes last, after linear2: "
        "dropout(linear2(gelu(linear1(x)))); not between the two linears, not on the input.",
    },
    "embeddings": {
        "output": "token + position + token type, then layer_norm, then dropout; positions are 0..T-1 "
        "(torch.arange(T)), and missing token_type_ids mean all zeros.",
        "train": "in train mode dropout (p = hidden_dropout_prob) comes after the layer norm, on the sum's "
        "normalised value: dropout(layer_norm(token + position + token type)); not before the layer norm, not on "
        "one embedding alone.",
        "table": "PE[p, 2i] = sin(p / 10000^(2i/d_model)) in even columns and PE[p, 2i+1] = cos(same angle) "
        "in odd columns; the exponent uses 2i (the even column index), not the column index itself.",
    },
    "encoder": {
        "layer": "BERT is post-LN: x = attention_norm(x + dropout(attention(x, mask))); "
        "x = output_norm(x + feed_forward(x)). The residual is added before each layer norm, not after.",
        "model": "embeddings, then every layer in order with padding_mask(attention_mask) (None when no mask is "
        "given); pass token_type_ids on to the embeddings.",
        "train": "in train mode the attention's output goes through self.dropout before the residual sum: "
        "attention_norm(x + dropout(attention(x))); the feed-forward block ends in its own dropout, so "
        "output_norm(x + feed_forward(x)) adds none; nothing else is dropped out.",
        "padding": "padded keys must be blocked in every layer, whatever tokens they hold: no real position's "
        "output may depend on a padded position's token.",
        "pretrained": "the encoder passes every synthetic test but not this one: look for what small configs do not "
        "show (eps, large D, many layers).",
    },
    "decoder": {
        "layer": "three post-LN sub-blocks in this order: masked self-attention (self_mask), cross-attention "
        "(queries from the decoder, keys and values from encoder_hidden_states, cross_mask), feed-forward; "
        "each as norm(x + dropout(sublayer(x))).",
        "model": "self-attention mask = causal_mask(T) & padding_mask(attention_mask) when a mask is given; "
        "cross-attention mask = padding_mask(encoder_attention_mask).",
        "train": "in train mode each attention's output goes through self.dropout before its residual sum: "
        "norm(x + dropout(attention(...))) for the self-attention and the cross-attention alike; the feed-forward "
        "block ends in its own dropout, so output_norm(x + feed_forward(x)) adds none.",
        "causal": "position i may only attend to positions 0..i, whatever tokens come later: causal_mask(T) in "
        "every self-attention.",
    },
    "heads": {
        "LanguageModelHead": "logits = decoder(layer_norm(gelu(dense(h)))) with the exact GELU; no softmax: "
        "logits are unnormalised scores (cross-entropy applies log-softmax itself).",
        "SequenceClassificationHead": "logits = classifier(dropout(tanh(pooler(h[:, 0])))), from the first "
        "position (the [CLS] token), unnormalised: no softmax or log_softmax.",
        "TransformerForSequenceClassification": "head(encoder(input_ids, attention_mask, token_type_ids)): "
        "pass both masks and token types through.",
        "train LanguageModelHead": "the LM head has no dropout: in train mode it computes what it computes in eval "
        "mode.",
        "train SequenceClassificationHead": "in train mode dropout (p = hidden_dropout_prob) sits between the "
        "pooler and the classifier: classifier(dropout(tanh(pooler(h[:, 0])))); not after the classifier, not "
        "before the pooler.",
        "train TransformerForSequenceClassification": "in train mode the encoder's dropouts and the head's one "
        "apply, nothing else: head(encoder(input_ids, attention_mask, token_type_ids)).",
    },
    "seq2seq": {
        "model": "encode the source with attention_mask, decode decoder_input_ids with decoder_attention_mask as "
        "the target mask and attention_mask as the cross-attention mask, then lm_head.",
        "decode": "start every row with bos_token_id; each step append the arg-max of the LAST position's logits; "
        "once a row has emitted eos_token_id, append pad_token_id to it; stop as soon as every row has finished, "
        "or after max_new_tokens steps.",
        "causal": "the decoder's self-attention must be causal, also inside the full model.",
    },
    "generation": {
        "probabilities": "divide the logits by the temperature; then set to -inf every logit below the top_k-th "
        "largest of its row (those equal to it stay); then sort what is left by probability, largest first, and drop "
        "each token that the larger ones before it already reach top_p with (the largest always stays); then a "
        "softmax.",
        "draw": "draw from sampling_probabilities(logits, temperature, top_k, top_p), every argument passed on, with "
        "one batched torch.multinomial(probabilities, 1, generator=generator), and return the tokens shaped (B,).",
        "cache": "project the new positions' keys and values, split the heads, put them after the cached ones (the "
        "positions' dimension) and store the result in the cache; new position i is position S + i, and sees keys 0 "
        "to S + i.",
        "beam": "score a hypothesis by the sum of its tokens' log-probabilities; each step take the 2 * num_beams best "
        "(beam, token) candidates: those among the first num_beams that end in EOS, or reach max_new_tokens, finish "
        "with their score divided by (tokens generated, EOS included) ** length_penalty; the rest are the next beams; "
        "stop once num_beams have finished.",
    },
    "integration": {
        "output": "every part is yours here: the component whose own tests fail is the one to fix first.",
    },
}
TOPICS["seq2seq"]["train"] = (
    "in train mode the dropouts are the encoder's and the decoder's own; the model adds none. "
    + TOPICS["seq2seq"]["model"]
)


def table(setting: str) -> str:
    """The text of generated/failure_hints.json under the hints setting."""
    return json.dumps({} if setting == "none" else TOPICS, indent=1, ensure_ascii=False) + "\n"
