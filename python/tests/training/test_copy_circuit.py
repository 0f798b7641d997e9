"""The wired copy circuit: it copies at initialization, survives save and load, and training keeps it."""

import random

import torch
from transformers import AutoModelForCausalLM

from toolenv import copy_circuit
from toolenv.tiny_model import write_tiny_model

# Varied enough that the tokenizer fills its vocabulary: a random span then rarely repeats by chance.
_words = random.Random(0)
CORPUS = [" ".join("".join(_words.choices("abcdefghijklmnopqrstuvwxyz", k=7)) for _ in range(12)) for _ in range(800)]


def _spans(vocab: int, seed: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    """Random tokens with spans of earlier ones repeated at varied distances; the mask marks what a copier predicts."""
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(10, vocab, (4, 512), generator=generator)
    mask = torch.zeros_like(tokens, dtype=torch.bool)
    for row in range(tokens.shape[0]):
        for j in range(6):
            n = int(torch.randint(4, 24, (1,), generator=generator))
            source = int(torch.randint(0, 200, (1,), generator=generator))
            target = 260 + j * 40
            tokens[row, target : target + n] = tokens[row, source : source + n]
            mask[row, target + 1 : target + n] = True
    return tokens, mask


def _copied(model, tokens: torch.Tensor, mask: torch.Tensor) -> float:
    with torch.no_grad():
        predicted = model(input_ids=tokens).logits[:, :-1].argmax(-1)
    return (predicted[mask[:, 1:]] == tokens[:, 1:][mask[:, 1:]]).float().mean().item()


def test_a_wired_model_copies_from_the_start_and_a_plain_one_does_not(tmp_path):
    small = write_tiny_model(tmp_path / "small", CORPUS, seed=1, size="small", copy=True)
    tiny = write_tiny_model(tmp_path / "tiny", CORPUS, seed=1, size="small")
    assert small["copy_circuit"] is True and tiny["copy_circuit"] is False
    model = AutoModelForCausalLM.from_pretrained(small["dir"])
    assert model.config.toolenv_copy_circuit["heads"] == {"0": [0], "1": [0, 1]}
    tokens, mask = _spans(model.config.vocab_size)
    assert _copied(model, tokens, mask) > 0.6, "the wired heads copy repeated spans of random tokens"
    plain = AutoModelForCausalLM.from_pretrained(tiny["dir"])
    assert _copied(plain, *_spans(plain.config.vocab_size)) < 0.05, "an unwired random model copies nothing"
    assert copy_circuit.freeze(plain) == 0


def test_training_moves_everything_but_the_circuit(tmp_path):
    written = write_tiny_model(tmp_path / "small", CORPUS, seed=2, size="small", copy=True)
    model = AutoModelForCausalLM.from_pretrained(written["dir"])
    assert copy_circuit.freeze(model) == 3
    head_dim = model.config.toolenv_copy_circuit["head_dim"]
    induction = model.model.layers[1].self_attn
    before = {name: p.detach().clone() for name, p in model.model.layers[1].named_parameters()}
    layer0_out = model.model.layers[0].self_attn.o_proj.weight[:, :head_dim].detach().clone()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    tokens, mask = _spans(model.config.vocab_size, seed=7)
    labels = tokens.masked_fill(~mask, -100)
    for _ in range(3):
        optimizer.zero_grad()
        model(input_ids=tokens, labels=labels).loss.backward()
        optimizer.step()
    after = dict(model.model.layers[1].named_parameters())
    held = slice(0, 2 * head_dim)
    for name in ("q_proj.weight", "k_proj.weight", "v_proj.weight", "q_proj.bias"):
        assert torch.equal(after[f"self_attn.{name}"][held], before[f"self_attn.{name}"][held]), name
        assert not torch.equal(after[f"self_attn.{name}"][held.stop :], before[f"self_attn.{name}"][held.stop :]), name
    # Where the induction heads look is held; how much of what they copy goes out is learned.
    assert not torch.equal(after["self_attn.o_proj.weight"][:, held], before["self_attn.o_proj.weight"][:, held])
    assert torch.equal(after["input_layernorm.weight"], before["input_layernorm.weight"])
    assert torch.equal(model.model.layers[0].self_attn.o_proj.weight[:, :head_dim], layer0_out)
    assert not torch.equal(after["mlp.up_proj.weight"], before["mlp.up_proj.weight"])
    assert induction is model.model.layers[1].self_attn
    assert _copied(model, *_spans(model.config.vocab_size)) > 0.6, "training on copies keeps the circuit copying"
