"""The "Likely mistake" sentences, by component and by the catalog's name of the mistake.

What the diagnosis names after "Likely mistake: " when a student's numbers match a cataloged mistake's: what they
did, then what to do instead, written for the mistake's whole family (every variant of it is named by the same
sentence). The catalog (engine/build/mistakes/<component>.py) holds each entry's edits of the reference and reads
its sentence from here by its name; the build writes it into the entry's evidence (build/evidence.py), which
diagnosis.py reads, so the public checks and the hidden suites say the same. A sentence no entry uses fails
tests/unit/test_sentences.py.
"""

LIKELY: dict[str, dict[str, str]] = {
    "attention": {
        "scores not scaled": "the scores query @ keyᵀ are not divided by sqrt(Dh); divide them by "
        "math.sqrt(query.size(-1)) before the softmax.",
        "scaled by Dh instead of sqrt(Dh)": "the scores are divided by Dh; divide them by its square root, "
        "math.sqrt(query.size(-1)).",
        "scores multiplied by sqrt(Dh)": "the scores are multiplied by sqrt(Dh); divide them by it.",
        "softmax over the query axis": "the softmax runs over the queries (dim=-2), so columns sum to 1; run it over "
        "the keys, the last dimension (dim=-1), so that each query's weights sum to 1.",
        "mask inverted": "the mask is used the wrong way round: True means the query MAY attend; fill the scores "
        "where the mask is False (~mask) with -inf.",
        "mask ignored": "the mask is never applied; fill the scores where the mask is False with -inf before the "
        "softmax.",
        "blocked scores set to 0": "blocked scores are set to 0 (a 0 fill, or scores multiplied by the mask), and "
        "exp(0) still gives them weight; fill them with float('-inf') so that their weight is exactly 0.",
        "mask applied after the softmax": "the mask zeroes weights after the softmax, so each row no longer sums to "
        "1; fill the scores with -inf before the softmax instead.",
        "scores returned instead of weights": "the second value returned is the scores; return the weights, "
        "softmax(scores), as the second value.",
        "output from the scores": "the output multiplies the scores by the values; multiply the weights, "
        "softmax(scores), by value.",
        "scale rounded to float32": "sqrt(Dh) is a float32 tensor, so float64 inputs are scaled by a rounded number; "
        "use a Python float (math.sqrt) or a tensor made with dtype=query.dtype.",
        "weights detached": "the weights are detached from the graph (.detach(), or computed under torch.no_grad()), "
        "so no gradient reaches the query or the key and attention cannot learn where to look; keep softmax(scores) "
        "in the graph.",
    },
    "masking": {
        "causal mask without its diagonal": "the causal mask hides the diagonal, so no position sees itself; keep it: "
        "True at [i, j] where j <= i (tril(), not tril(-1)).",
        "causal mask upper-triangular": "the causal mask is upper-triangular, so each position sees the future; make "
        "it lower-triangular (tril): True where j <= i.",
        "causal mask as 0 and -inf": "the causal mask is PyTorch's additive float mask (0 and -inf); the kit's masks "
        "are boolean, True where attending is allowed.",
        "padding mask inverted": "the padding mask is True at the padding; it must be True at the real tokens (where "
        "attention_mask is 1).",
        "padding mask shaped (B, 1, S, 1)": "the padding mask is shaped (B, 1, S, 1), so it masks queries, not keys; "
        "shape it (B, 1, 1, S) with [:, None, None, :].",
        "padding mask left (B, S)": "the padding mask keeps its (B, S) shape, which does not broadcast over heads and "
        "queries; reshape it to (B, 1, 1, S).",
        "padding mask left as integers": "the padding mask keeps the 0/1 integers; convert it with .bool(), since ~ "
        "on an integer tensor is not a logical not.",
    },
    "layernorm": {
        "unbiased variance": "the variance divides by D - 1 (unbiased); layer norm divides by D: use .mean() of the "
        "squared deviations, or var(unbiased=False).",
        "eps outside the square root": "eps is added after the square root; add it inside: (x - mean) / sqrt(var + "
        "eps).",
        "divided by the variance": "x - mean is divided by the variance; divide it by the standard deviation, "
        "sqrt(var + eps).",
        "mean not subtracted": "x is divided by the standard deviation without subtracting the mean first; normalise "
        "x - mean.",
        "weight and bias never applied": "weight and bias are never applied; return weight * normalised + bias.",
        "eps hard-coded": "eps is a fixed number; use self.eps, the eps the layer norm was built with.",
        "variance computed in float32": "the variance is computed in float32, so float64 inputs lose precision; keep "
        "every step in the input's dtype (no .float()).",
        "input detached": "the input is detached (.detach(), or torch.no_grad()), so no gradient reaches the layer "
        "norm's input, nor anything before it; keep x in the graph.",
        "mean and variance detached": "the mean and the variance are detached, as if they were constants; they depend "
        "on x, and the gradient must flow through them too: no .detach() on either.",
        "weight frozen": "weight does not require grad (requires_grad=False), so training never changes it; leave "
        "every parameter trainable.",
    },
    "feedforward": {
        "tanh approximation of GELU": "GELU is the tanh approximation; BERT uses the exact (erf) GELU: F.gelu(x) "
        "without approximate='tanh'.",
        "sigmoid approximation of GELU": "GELU is approximated as x * sigmoid(1.702 x); use the exact GELU, F.gelu(x).",
        "ReLU instead of GELU": "the nonlinearity is ReLU; BERT uses the exact GELU, F.gelu.",
        "no nonlinearity": "there is no nonlinearity between the layers, so the block is one linear map; apply F.gelu "
        "to linear1's output.",
        "GELU after linear2": "GELU is applied after linear2; it goes between the layers: linear2(gelu(linear1(x))).",
        "residual inside the block": "the block adds its input x to its output; the residual belongs to the layer "
        "that uses the block, so return linear2(gelu(linear1(x))) alone.",
        "dropout active in eval mode": "dropout is applied in eval mode too (F.dropout(x, p) drops whatever the "
        "mode); use the nn.Dropout module, self.dropout, which eval() turns off.",
        "GELU computed in float32": "GELU runs in float32, so float64 inputs lose precision; keep the input's dtype "
        "(no .float()).",
        "intermediate size hard-coded": "the inner size is a fixed number; read it from the config: "
        "config.intermediate_size.",
        "dropout between the two linears": "dropout sits between the two linears; BERT applies it after the second: "
        "dropout(linear2(gelu(linear1(x)))).",
        "dropout missing": "the block has no dropout; BERT ends it with one: dropout(linear2(gelu(linear1(x)))).",
        "first linear frozen": "linear1's weight and bias do not require grad, so training never changes them; leave "
        "every parameter trainable (no requires_grad_(False)).",
    },
    "multihead": {
        "heads split without transposing": "the heads are split by a view or reshape alone, which never moves the "
        "head axis to dim 1, so positions and heads are mixed; use view(B, T, H, Dh).transpose(1, 2).",
        "heads merged without transposing back": "the heads are merged with a plain reshape(B, T, D) of (B, H, T, "
        "Dh), which mixes positions; transpose(1, 2) first, then reshape.",
        "output projection forgotten": "the merged heads are returned without the output projection; apply "
        "self.output to them.",
        "key_value_states ignored": "key_value_states is ignored, so cross-attention attends to hidden_states itself; "
        "take keys and values from key_value_states when it is given.",
        "cross-attention queries from the source": "in cross-attention the queries come from key_value_states; "
        "queries come from hidden_states, keys and values from key_value_states.",
        "values from the key projection": "the values are made with the key projection; use self.value.",
        "mask not passed on": "the mask is not passed to the attention; give it to scaled_dot_product_attention.",
        "weights averaged over the heads": "the weights are averaged over the heads, as nn.MultiheadAttention does by "
        "default; return every head's weights, (B, H, T, S).",
        "scaled by sqrt(D) instead of sqrt(Dh)": "the scores are divided by sqrt(D), the model's width; each head "
        "divides by the square root of its own size, Dh = D / H.",
        "1/sqrt(Dh) kept as a float32 tensor": "1/sqrt(Dh) is kept as a float32 tensor, so float64 inputs are scaled "
        "by a rounded number; use a Python float.",
        "head count hard-coded": "the number of heads is a fixed number; read it from the config: "
        "config.num_attention_heads.",
        "head size hard-coded": "the head size is a fixed number; compute it from the config: Dh = hidden_size // "
        "num_attention_heads.",
        "dropout missing on the attention probabilities": "dropout is missing on the attention probabilities; BERT "
        "drops them out after the softmax, before they weight the values.",
        "dropout on the scores": "dropout is applied to the scores, before the softmax; BERT applies it to the "
        "probabilities, after the softmax, before they weight the values.",
        "dropout on the output": "dropout is applied to the block's output; BERT drops out the attention "
        "probabilities before they weight the values, and the output's own dropout belongs to the layer that adds the "
        "residual.",
        "hidden dropout probability on the attention": "the attention's dropout uses hidden_dropout_prob; BERT drops "
        "out attention probabilities with config.attention_probs_dropout_prob.",
        "keys detached": "the keys are detached (.detach()), so no gradient reaches the key projection and it never "
        "learns; keep them in the graph.",
    },
    "embeddings": {
        "positions counted from 1": "positions are counted from 1; they run 0, 1, ..., T - 1 (torch.arange(T)).",
        "position embeddings forgotten": "the position embeddings are not added, so the model cannot tell positions "
        "apart; add position_embeddings of the positions 0..T-1.",
        "token types forgotten": "the token-type embeddings are not added; add token_type_embeddings(token_type_ids), "
        "with type 0 when none are given.",
        "layer norm forgotten": "the sum is returned without the layer norm; apply self.layer_norm to token + "
        "position + token type.",
        "sin and cos swapped": "the sinusoidal table has cos in the even columns and sin in the odd ones; PE[p, 2i] = "
        "sin, PE[p, 2i+1] = cos.",
        "sin and cos in halves": "the sinusoidal table puts all the sines first and all the cosines after them; "
        "interleave them: sines in the even columns (0::2), cosines in the odd ones (1::2).",
        "exponent uses i instead of 2i": "the frequencies use i where the formula has 2i: the angle is p / 10000^(2i "
        "/ d_model) for columns 2i and 2i + 1.",
        "layer norm built without config.layer_norm_eps": "the layer norm does not get config.layer_norm_eps (it "
        "keeps its default, or a number written in); pass eps=config.layer_norm_eps.",
        "two token types hard-coded": "the token-type table has a fixed 2 rows; read its size from the config: "
        "config.type_vocab_size.",
        "dropout before the layer norm": "dropout comes before the layer norm; BERT applies it after: "
        "dropout(layer_norm(token + position + token type)).",
        "dropout missing": "the embeddings have no dropout; BERT applies one after the layer norm: "
        "dropout(layer_norm(token + position + token type)).",
        "position embeddings frozen": "the position embeddings do not require grad, so they never learn; BERT's "
        "positions are learned: leave position_embeddings trainable.",
    },
    "encoder": {
        "pre-LN instead of post-LN": "the layer norms come before the sub-blocks (pre-LN); BERT is post-LN: x = "
        "norm(x + sub_block(x)).",
        "residual added after the norm": "the residual is added after the layer norm, x + norm(sub_block(x)); add it "
        "inside: norm(x + sub_block(x)).",
        "attention residual forgotten": "the attention sub-block has no residual; normalise x + attention(x), not "
        "attention(x) alone.",
        "feed-forward residual forgotten": "the feed-forward sub-block has no residual; normalise x + feed_forward(x).",
        "one norm for both sub-blocks": "attention_norm is used after both sub-blocks; the feed-forward sub-block has "
        "its own, output_norm.",
        "padding mask not passed to the layers": "the padding mask never reaches the attention (the encoder does not "
        "pass it to its layers, or a layer not on to its attention), so real tokens attend to padding; pass "
        "padding_mask(attention_mask) to every layer, and the layer's mask to self.attention.",
        "token types dropped": "token_type_ids are not passed to the embeddings; pass them on.",
        "residual summed in float32": "the residual is summed in float32, so float64 inputs lose precision; keep the "
        "input's dtype (no .float()).",
        "layer norm built without config.layer_norm_eps": "a layer norm does not get config.layer_norm_eps (it keeps "
        "its default, or a number written in); pass eps=config.layer_norm_eps.",
        "two layers hard-coded": "the encoder has a fixed 2 layers; build config.num_hidden_layers of them.",
        "attention output not dropped out": "the attention's output is added to the residual without dropout; BERT "
        "applies self.dropout to it first: attention_norm(x + dropout(attention(x))).",
        "dropout on the residual sum": "dropout is applied to the residual sum; BERT applies it to the attention's "
        "output alone, before the sum: attention_norm(x + dropout(attention(x))).",
        "feed-forward output dropped out twice": "the feed-forward's output goes through dropout again; FeedForward "
        "already ends in dropout, so the layer adds none: output_norm(x + feed_forward(x)).",
        "layers cut from each other": "each layer's input is detached, so no gradient reaches the layers below the "
        "last one, nor the embeddings; pass hidden_states on as it is.",
    },
    "decoder": {
        "no causal mask": "the self-attention has no causal mask, so each position sees later ones; start from "
        "causal_mask(T).",
        "masks combined with or": "the causal and padding masks are combined with | (or), which lets every position "
        "see the whole target; combine them with & (and).",
        "target padding ignored": "the target's padding mask is left out of the self-attention; combine "
        "causal_mask(T) & padding_mask(attention_mask).",
        "cross-attention attends to the decoder itself": "the cross-attention takes its keys and values from the "
        "decoder's own hidden states; they come from encoder_hidden_states.",
        "cross mask ignored": "the cross-attention is given no mask (a layer does not pass cross_mask on to it, or "
        "the decoder does not pass it to its layers), so the decoder attends to the source's padding; pass "
        "padding_mask(encoder_attention_mask) to every layer as cross_mask, and cross_mask to the cross-attention.",
        "cross-attention before self-attention": "the cross-attention comes before the self-attention; the order is "
        "masked self-attention, then cross-attention, then feed-forward.",
        "cross-attention residual forgotten": "the cross-attention sub-block has no residual; normalise x + "
        "cross_attention(x).",
        "output norm built without config.layer_norm_eps": "a layer norm does not get config.layer_norm_eps (it keeps "
        "its default, or a number written in); pass eps=config.layer_norm_eps.",
        "two layers hard-coded": "the decoder has a fixed 2 layers; build config.num_hidden_layers of them.",
        "cross-attention output not dropped out": "the cross-attention's output is added to the residual without "
        "dropout; BERT applies self.dropout to it first: cross_attention_norm(x + dropout(cross_attention(x, "
        "memory))).",
        "encoder states detached": "the encoder's hidden states are detached in the cross-attention, so no gradient "
        "reaches the encoder from the decoder; keep them in the graph.",
    },
    "heads": {
        "softmax applied to the logits": "the LM head returns probabilities; return the logits, with no softmax.",
        "log-softmax applied to the logits": "the LM head returns log-probabilities; return the logits, with no "
        "log_softmax.",
        "LM head without its transform": "the LM head applies only its decoder; BERT's head first transforms the "
        "hidden states: decoder(layer_norm(gelu(dense(h)))).",
        "GELU missing from the LM head": "the LM head has no GELU; apply it between dense and layer_norm.",
        "layer norm before GELU in the LM head": "the LM head normalises before the GELU; the order is dense, GELU, "
        "layer norm.",
        "a step left out of the LM head": "the LM head leaves out a step of its transform (dense, GELU or layer "
        "norm); BERT's head applies all three, in order: decoder(layer_norm(gelu(dense(h)))).",
        "pooler's dense layer left out": "the pooler leaves out its dense layer, self.pooler; pooled = "
        "tanh(pooler(h[:, 0])), and the classifier reads dropout(pooled).",
        "classifier mean-pools instead of reading [CLS]": "the classifier averages every position; BERT reads the "
        "first ([CLS]) position only: hidden_states[:, 0].",
        "classifier reads the last position": "the classifier reads the last position; BERT reads the first ([CLS]) "
        "one: hidden_states[:, 0].",
        "tanh missing from the pooler": "the pooler has no tanh; pooled = tanh(pooler(h[:, 0])).",
        "pooler's tanh in float32": "the pooler's tanh runs in float32, so float64 inputs lose precision; keep the "
        "input's dtype (no .float()).",
        "LM head's layer norm built without config.layer_norm_eps": "the LM head's layer norm does not get "
        "config.layer_norm_eps (it keeps its default, or a number written in); pass eps=config.layer_norm_eps.",
        "three labels hard-coded": "the classifier has a fixed 3 outputs; read their number from the config: "
        "config.num_labels.",
        "dropout after the classifier": "dropout is applied to the logits, after the classifier; BERT applies it "
        "before: classifier(dropout(tanh(pooler(h[:, 0])))).",
        "classifier dropout missing": "the classification head has no dropout; BERT applies one between the pooler "
        "and the classifier: classifier(dropout(tanh(pooler(h[:, 0])))).",
    },
    "seq2seq": {
        "source padding not passed to cross-attention": "the decoder is not given the source's attention_mask, so it "
        "attends to the source's padding; pass attention_mask as encoder_attention_mask.",
        "target padding not passed to the decoder": "the decoder is not given decoder_attention_mask; pass it as the "
        "decoder's attention_mask.",
        "finished rows not padded": "a row goes on generating after its EOS; from then on append pad_token_id to it.",
        "decoding never stops early": "decoding always runs max_new_tokens steps; stop as soon as every row has "
        "emitted EOS.",
        "EOS ignored": "EOS is never noticed: rows are neither padded nor stopped; mark a row finished once it emits "
        "eos_token_id, pad it from then on, and stop when every row has finished.",
        "next token read from the first position": "the next token is read from the first position's logits; read it "
        "from the last position, hidden_states[:, -1].",
        "BOS left out of the result": "the result leaves out the BOS token it started from; return bos, then the "
        "generated tokens.",
        "encoder output detached": "the encoder's output is detached in the model's forward, so no gradient reaches "
        "the encoder and only the decoder would learn; keep memory in the graph.",
    },
}
