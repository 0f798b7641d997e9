"""A copy circuit wired into a fresh Qwen2 model (`toolenv model tiny-hf --copy-circuit`), and kept through training.

Half of a ParaAct demonstration's assistant tokens are copies: the task's words into the plan and the search, a tool
id out of `<tools>`, a value out of the task or a result. Copying needs an induction head (attend to the token after an
earlier occurrence of the current one, and predict it), and a model trained from scratch on a CPU budget does not grow
one (docs/training.md, "The copy circuit"). So the heads are written in by hand, the classic two-layer construction:

- layer 0, head 0, a previous-token head: constant query and key (the projections' biases) whose rotary phases line up
  at a distance of one token; its value writes a sketch of the previous token (a fixed random projection `G` of the
  normalized embedding) into a subspace `U` of the residual stream that `G` does not read;
- layer 1, heads 0 and 1, induction heads: the query is the sketch `G` of the current token, the key reads the sketch
  that layer 0 wrote (the token before each position), on the rotary pairs whose frequencies are too low to turn over a
  sequence; the value and output copy the attended token's embedding, which the tied unembedding reads as its logit.

A large rotary base (1e12) leaves six fast pairs for the previous-token head and the slow ones for content matching.
Training would wash the hand-set weights out (Adam moves each by about the learning rate a step, as large as many of
them), so `freeze()` zeroes their gradients, and holds the embeddings: the rest of the model learns to use the circuit.
"""

from __future__ import annotations

import math
from typing import Any

# The layout written into config.json (`toolenv_copy_circuit`), read back by freeze().
POSITION_PAIRS = 6
CONTENT_FROM_PAIR = 10
ROPE_THETA = 1e12
POSITION_GAIN = 60.0
SKETCH_GAIN = 0.5
MATCH_GAIN = 14.0
COPY_GAIN = 8.0
# Embeddings are held still (freeze()), so they start large enough for sharp logits through the tied unembedding.
EMBEDDING_STD = 0.15


def wire(model: Any, seed: int) -> dict:
    """Writes the circuit into `model` (a fresh Qwen2ForCausalLM with MHA, rope_theta ROPE_THETA) and returns the
    layout kept in its config: which rows of which projections are the circuit's."""
    import torch

    config = model.config
    hidden = config.hidden_size
    head_dim = hidden // config.num_attention_heads
    half = head_dim // 2
    if config.num_key_value_heads != config.num_attention_heads or config.num_hidden_layers < 2:
        raise ValueError("the copy circuit needs one key/value head per query head and at least two layers")
    theta = config.rope_parameters["rope_theta"]
    freqs = [theta ** (-2 * i / head_dim) for i in range(half)]
    content = [*range(CONTENT_FROM_PAIR, half), *range(CONTENT_FROM_PAIR + half, head_dim)]
    width = len(content)
    generator = torch.Generator().manual_seed(seed)
    basis, _ = torch.linalg.qr(torch.randn(hidden, hidden, generator=generator))
    sketch = basis[:, :width].T.clone()  # G: reads the current token
    written = basis[:, width : 2 * width].clone()  # U: where the previous token's sketch goes, orthogonal to G

    with torch.no_grad():
        model.model.embed_tokens.weight.normal_(0.0, EMBEDDING_STD, generator=generator)
        previous = model.model.layers[0].self_attn
        rows = slice(0, head_dim)
        for proj in (previous.q_proj, previous.k_proj, previous.v_proj):
            proj.weight[rows] = 0
            proj.bias[rows] = 0
        for i in range(POSITION_PAIRS):
            # The score of a key d tokens back is the sum of cos(freq_i * (d - 1)): largest at d = 1.
            previous.k_proj.bias[i] = 1.0
            previous.q_proj.bias[i] = POSITION_GAIN * math.cos(freqs[i])
            previous.q_proj.bias[i + half] = -POSITION_GAIN * math.sin(freqs[i])
        previous.v_proj.weight[content] = sketch * SKETCH_GAIN
        previous.o_proj.weight[:, rows] = 0
        previous.o_proj.weight[:, content] = written

        induction = model.model.layers[1].self_attn
        for head in range(2):
            rows = slice(head * head_dim, (head + 1) * head_dim)
            at = [head * head_dim + c for c in content]
            for proj in (induction.q_proj, induction.k_proj, induction.v_proj):
                proj.weight[rows] = 0
                proj.bias[rows] = 0
            induction.q_proj.weight[at] = sketch * MATCH_GAIN
            induction.k_proj.weight[at] = written.T * MATCH_GAIN
            value = basis[:, 2 * width + head * head_dim : 2 * width + (head + 1) * head_dim].T.clone()
            induction.v_proj.weight[rows] = value
            induction.o_proj.weight[:, rows] = value.T * COPY_GAIN
    return {"heads": {"0": [0], "1": [0, 1]}, "head_dim": head_dim}


def freeze(model: Any) -> int:
    """Holds where the circuit looks, if the model has one: zeroes the gradient of its heads' q/k/v rows and of the
    previous-token head's output columns, and holds its layers' input norms and the embeddings; returns how many heads
    it holds. Hooks, not requires_grad, for the heads: the circuit shares its tensors with the other heads."""
    import torch

    layout = getattr(model.config, "toolenv_copy_circuit", None)
    if not layout:
        return 0
    head_dim = int(layout["head_dim"])
    held = 0
    for layer, heads in layout["heads"].items():
        attention = model.model.layers[int(layer)].self_attn
        rows = torch.zeros(attention.q_proj.weight.shape[0], dtype=torch.bool)
        for head in heads:
            rows[head * head_dim : (head + 1) * head_dim] = True
            held += 1
        keep = (~rows).to(attention.q_proj.weight.dtype)
        for proj in (attention.q_proj, attention.k_proj, attention.v_proj):
            proj.weight.register_hook(lambda grad, keep=keep: grad * keep[:, None])
            proj.bias.register_hook(lambda grad, keep=keep: grad * keep)
        # The induction heads' output trains: held, they copy into loops that nothing downstream can damp.
        if layer == "0":
            attention.o_proj.weight.register_hook(lambda grad, keep=keep: grad * keep[None, :])
        # The norm in front scales what the circuit reads, dimension by dimension: it stays too.
        model.model.layers[int(layer)].input_layernorm.weight.requires_grad_(False)
    # The circuit tells tokens apart by their embeddings: trained on a small corpus, the rare ones (the ids and values
    # a task asks to copy) are pushed together as the softmax's negatives until the circuit cannot tell them apart.
    model.model.embed_tokens.weight.requires_grad_(False)
    return held
