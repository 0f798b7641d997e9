"""Small random-weight Qwen2 models with a tokenizer built here (nothing from a hub): `tiny` for tests and smoke
runs, `small` for a policy that learns the protocol on one CPU machine (`toolenv bench --learning`).

The tokenizer is byte-level BPE trained on a corpus the caller gives (`toolenv model tiny-hf` passes the protocol's
system prompts, and any text `--corpus` adds, such as demonstrations), so any text encodes; the ParaAct tags are
atomic tokens, never split, and kept when decoding.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolenv import copy_circuit

CONTROL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
PROTOCOL_TAGS = [
    f"<{slash}{name}>"
    for name in ("think", "plan", "search_tool", "tool_call", "answer", "tools", "tool_response", "error")
    for slash in ("", "/")
]

# ChatML with generation markers, so TRL's assistant_only_loss masks exactly the assistant turns (end token included).
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' }}"
    "{%- if message['role'] == 'assistant' %}"
    "{%- generation %}{{- message['content'] + '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}"
    "{%- else %}{{- message['content'] + '<|im_end|>\\n' }}{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


def build_tokenizer(corpus: list[str], vocab_size: int, prompts: list[str] | None = None):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AddedToken, PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=CONTROL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tokenizer.add_tokens([AddedToken(tag, special=False, normalized=False) for tag in PROTOCOL_TAGS])
    # Each system prompt is one token: a model trained from scratch learns nothing from reading a constant text, and
    # at ~850 tokens it was 40% of every sequence it trains and generates on.
    tokenizer.add_tokens([AddedToken(prompt, special=False, normalized=False) for prompt in prompts or []])
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


# Measured on the project's 2-core machine (batches of 4 × 2,048 tokens): tiny trains at ~11 K tokens/s, small ~2.8 K.
SIZES = {
    "tiny": {"hidden": 128, "layers": 2, "intermediate": 256, "heads": 4, "vocab": 2048},
    "small": {"hidden": 256, "layers": 4, "intermediate": 768, "heads": 4, "vocab": 4096},
}


def write_tiny_model(
    out: Path,
    corpus: list[str],
    *,
    seed: int = 1,
    size: str = "tiny",
    prompts: list[str] | None = None,
    copy: bool = False,
) -> dict:
    """Writes the model and its tokenizer to `out`; `copy` wires in the copy circuit (toolenv.copy_circuit), which
    needs a key/value head per query head and a large rotary base."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    shape = SIZES[size]
    tokenizer = build_tokenizer(corpus, shape["vocab"], prompts)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=shape["hidden"],
        intermediate_size=shape["intermediate"],
        num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"],
        num_key_value_heads=shape["heads"] if copy else 2,
        max_position_embeddings=16384,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    if copy:
        config.rope_parameters = {"rope_type": "default", "rope_theta": copy_circuit.ROPE_THETA}
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    if copy:
        model.config.toolenv_copy_circuit = copy_circuit.wire(model, seed)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, do_sample=True
    )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    parameters = sum(p.numel() for p in model.parameters())
    return {
        "dir": str(out),
        "size": size,
        "vocab": len(tokenizer),
        "parameters": parameters,
        "seed": seed,
        "copy_circuit": copy,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.tiny_model", description=__doc__)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--corpus", type=Path, help="UTF-8 text the tokenizer is trained on (one document per line)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--prompts", type=Path, help="a JSON list of system prompts, each made one token")
    parser.add_argument("--copy-circuit", action="store_true", help="wire in the copy circuit (toolenv.copy_circuit)")
    args = parser.parse_args(argv)
    corpus = args.corpus.read_text(encoding="utf-8").splitlines() if args.corpus else []
    corpus += PROTOCOL_TAGS
    prompts = json.loads(args.prompts.read_text(encoding="utf-8")) if args.prompts else None
    wired = args.copy_circuit
    print(json.dumps(write_tiny_model(args.out, corpus, seed=args.seed, size=args.size, prompts=prompts, copy=wired)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
