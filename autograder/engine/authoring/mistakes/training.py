"""The catalog's mistakes in `training`."""

from autograder.engine.authoring.mistakes.mistake import Mistake, entries

ZERO_THEN_BACKWARD = "    optimizer.zero_grad()\n    loss.backward()\n"
CLIP_THEN_STEP = (
    "    if max_norm is not None:\n        clip_gradient_norm(model.parameters(), max_norm)\n    optimizer.step()\n"
)
SCALED = "    if norm > max_norm:\n        for grad in grads:\n            grad.mul_(max_norm / (norm + 1e-6))\n"
WARM_UP = "        return peak * step / warmup_steps\n"
DECAY = "    return peak * (total_steps - step) / (total_steps - warmup_steps)\n"

MISTAKES = entries(
    "training",
    Mistake(
        "shift keeps the last token",
        says="the decoder's input is not BOS followed by the target less its last token (the last token kept, BOS "
        "left out, or the target not shifted at all); return BOS, then target[:, :-1], as long as the target.",
        edits=[("torch.cat([bos, target[:, :-1]], dim=1)  #", "torch.cat([bos, target], dim=1)  #")],
        variants=[
            ("BOS left out", [("torch.cat([bos, target[:, :-1]], dim=1)  #", "target[:, :-1]  #")]),
            ("not shifted", [("torch.cat([bos, target[:, :-1]], dim=1)  #", "target.clone()  #")]),
        ],
    ),
    Mistake(
        "padding counted in the loss",
        says="the loss counts the padded positions too; leave out every position whose target is pad_token_id "
        "(cross-entropy's ignore_index), from the sum and from the count it is averaged over.",
        edits=[
            (
                "F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)\n    ### END",
                "F.cross_entropy(logits.flatten(0, 1), target.flatten())\n    ### END",
            )
        ],
    ),
    Mistake(
        "loss averaged per sequence",
        says="the loss is averaged over each sequence's tokens, then over the sequences, so a short sequence's "
        "tokens weigh more than a long one's; average over every real token of the batch at once.",
        edits=[
            (
                "    return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=pad_token_id)\n",
                "    losses = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad_token_id, reduction='none')\n"
                "    real = (target != pad_token_id).to(losses.dtype)\n"
                "    return (losses.sum(dim=1) / real.sum(dim=1)).mean()\n",
            )
        ],
    ),
    Mistake(
        "warm-up off by one step",
        says="the warm-up is one step off (steps counted from 0, or the line reaching peak a step after "
        "warmup_steps): steps count from 1, and the rate is peak * step / warmup_steps, peak exactly at step "
        "warmup_steps.",
        edits=[(WARM_UP, "        return peak * (step - 1) / warmup_steps\n")],
        variants=[
            ("a step late", [(WARM_UP, "        return peak * step / (warmup_steps + 1)\n")]),
        ],
    ),
    Mistake(
        "decay off by one step",
        says="the decay is one step off, so the rate is not 0 at step total_steps (or reaches 0 a step early and "
        "goes below it): it is peak * (total_steps - step) / (total_steps - warmup_steps), 0 exactly at total_steps.",
        edits=[(DECAY, "    return peak * (total_steps - step + 1) / (total_steps - warmup_steps)\n")],
        variants=[
            ("early", [(DECAY, "    return peak * (total_steps - step - 1) / (total_steps - warmup_steps)\n")]),
        ],
    ),
    Mistake(
        "decay over every step",
        says="the decay is spread over total_steps from the start, so it begins below peak after the warm-up; it "
        "runs over the steps after the warm-up: divide by total_steps - warmup_steps.",
        edits=[(DECAY, "    return peak * (total_steps - step) / total_steps\n")],
    ),
    Mistake(
        "clipping without the 1e-6",
        says="the gradients are scaled by max_norm / norm; the contract (and torch's clip_grad_norm_) scales by "
        "max_norm / (norm + 1e-6), which also keeps a norm of 0 from dividing by 0.",
        edits=[("grad.mul_(max_norm / (norm + 1e-6))", "grad.mul_(max_norm / norm)")],
    ),
    Mistake(
        "each gradient clipped by its own norm",
        says="each gradient is clipped to max_norm by its own norm, which changes the direction of the whole; "
        "compute one total norm over every gradient and scale them all by the same max_norm / (norm + 1e-6).",
        edits=[
            (
                SCALED,
                "    for grad in grads:\n"
                "        own = torch.linalg.vector_norm(grad)\n"
                "        if own > max_norm:\n"
                "            grad.mul_(max_norm / (own + 1e-6))\n",
            )
        ],
    ),
    Mistake(
        "small gradients scaled up",
        says="the gradients are scaled to max_norm even when their norm is below it, which makes small gradients "
        "larger; scale only when the total norm exceeds max_norm.",
        edits=[(SCALED, "    for grad in grads:\n        grad.mul_(max_norm / (norm + 1e-6))\n")],
    ),
    Mistake(
        "norms added",
        says="the total norm is the sum of the gradients' norms; it is the L2 norm of all their elements together: "
        "the square root of the sum of their squared norms.",
        edits=[
            (
                "torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))  #",
                "torch.stack([torch.linalg.vector_norm(g) for g in grads]).sum()  #",
            )
        ],
    ),
    Mistake(
        "gradients never zeroed",
        says="the step never clears the gradients, so backward adds this batch's to those of earlier steps; call "
        "optimizer.zero_grad() before loss.backward().",
        edits=[(ZERO_THEN_BACKWARD, "    loss.backward()\n")],
    ),
    Mistake(
        "gradients zeroed after backward",
        says="the gradients are cleared between loss.backward() and optimizer.step(), so the step has nothing to "
        "apply and the parameters never move; clear them before backward: zero_grad(), backward(), step().",
        edits=[(ZERO_THEN_BACKWARD, "    loss.backward()\n    optimizer.zero_grad()\n")],
    ),
    Mistake(
        "model not in train mode",
        says="the step runs the model in whatever mode it was left in (eval, after a validation), so dropout is off "
        "while it learns; call model.train() at the start of every step.",
        edits=[("    model.train()\n    logits", "    logits")],
    ),
    Mistake(
        "clipped after the step",
        says="the optimizer steps with the gradients as backward left them: clipping comes after the step, or "
        "never; when max_norm is given, clip between loss.backward() and optimizer.step().",
        edits=[
            (
                CLIP_THEN_STEP,
                "    optimizer.step()\n"
                "    if max_norm is not None:\n"
                "        clip_gradient_norm(model.parameters(), max_norm)\n",
            )
        ],
    ),
    Mistake(
        "loss returned after the step",
        says="the loss returned is computed again after the optimizer's step; return the loss of this batch as the "
        "step computed it, before the weights moved (loss.item()).",
        edits=[
            (
                "    optimizer.step()\n    return loss.item()\n",
                "    optimizer.step()\n"
                "    with torch.no_grad():\n"
                "        logits = model(source, shift_right(target, bos_token_id), source_mask)\n"
                "    return sequence_loss(logits, target, pad_token_id).item()\n",
            )
        ],
    ),
)
