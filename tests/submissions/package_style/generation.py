"""The encoder-decoder model and greedy decoding, with a Python list of steps."""
import torch
from torch import nn

import models


class Seq2SeqTransformer(nn.Module):
    def __init__(self, encoder_config, decoder_config):
        super().__init__()
        self.encoder = models.TransformerEncoder(encoder_config)
        self.decoder = models.TransformerDecoder(decoder_config)
        self.lm_head = models.LanguageModelHead(decoder_config)

    def forward(self, input_ids, decoder_input_ids, attention_mask=None, decoder_attention_mask=None):
        encoder_hidden_states = self.encoder(input_ids, attention_mask=attention_mask)
        decoded = self.decoder(decoder_input_ids, encoder_hidden_states, attention_mask=decoder_attention_mask,
                               encoder_attention_mask=attention_mask)
        return self.lm_head(decoded)


def greedy_decode(model, input_ids, attention_mask=None, *, bos_token_id, eos_token_id, pad_token_id, max_new_tokens):
    model.eval()
    with torch.no_grad():
        memory = model.encoder(input_ids, attention_mask=attention_mask)
        steps = [torch.full((input_ids.size(0),), bos_token_id, dtype=torch.long, device=input_ids.device)]
        finished = [False] * input_ids.size(0)
        while len(steps) <= max_new_tokens and not all(finished):
            so_far = torch.stack(steps, dim=1)
            hidden = model.decoder(so_far, memory, encoder_attention_mask=attention_mask)
            best = model.lm_head(hidden[:, -1:, :]).squeeze(1).argmax(dim=-1).tolist()
            chosen = []
            for row, token in enumerate(best):
                chosen.append(pad_token_id if finished[row] else token)
                finished[row] = finished[row] or token == eos_token_id
            steps.append(torch.tensor(chosen, dtype=torch.long, device=input_ids.device))
        return torch.stack(steps, dim=1)
