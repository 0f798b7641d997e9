"""The encoder export on a tiny random BERT: ONNX with dynamic axes, written in the layout transformers.js reads."""

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")  # the exporter's dependency; scripts/setup-encoder installs it
ort = pytest.importorskip("onnxruntime")  # quantizes the int8 copy; scripts/setup-encoder installs it

from toolenv.encoder import export  # noqa: E402


def tiny_bert(tmp_path):
    source = tmp_path / "tiny"
    config = transformers.BertConfig(
        vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(source)
    (source / "tokenizer.json").write_text("{}")
    (source / "1_Pooling").mkdir()
    (source / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True}))
    return source


def test_export_writes_the_layout_and_the_graph_runs_any_batch_and_length(tmp_path):
    import onnx

    source = tiny_bert(tmp_path)
    report = export(tmp_path / "out", source)
    out = tmp_path / "out"
    for name in ["config.json", "tokenizer.json", "1_Pooling/config.json", "onnx/model.onnx"]:
        assert (out / name).is_file(), name
    assert report["bytes"] == (out / "onnx" / "model.onnx").stat().st_size
    graph = onnx.load(str(out / "onnx" / "model.onnx")).graph
    assert [i.name for i in graph.input] == ["input_ids", "attention_mask", "token_type_ids"]
    assert [o.name for o in graph.output] == ["last_hidden_state"]
    dims = [d.dim_param for d in graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["batch", "sequence"]


def test_export_writes_an_int8_copy_whose_outputs_follow_the_fp32_graph(tmp_path):
    import numpy as np

    report = export(tmp_path / "out", tiny_bert(tmp_path))
    onnx_dir = tmp_path / "out" / "onnx"
    assert report["bytes_q8"] == (onnx_dir / "model_quantized.onnx").stat().st_size
    feed = {
        "input_ids": np.array([[1, 5, 9, 2], [1, 7, 2, 0]], dtype=np.int64),
        "attention_mask": np.array([[1, 1, 1, 1], [1, 1, 1, 0]], dtype=np.int64),
        "token_type_ids": np.zeros((2, 4), dtype=np.int64),
    }
    fp32, q8 = (
        ort.InferenceSession(str(onnx_dir / f)).run(None, feed)[0] for f in ["model.onnx", "model_quantized.onnx"]
    )
    assert q8.shape == fp32.shape == (2, 4, 16)
    # One scale per output column of each weight matrix, not one per matrix.
    import onnx

    graph = onnx.load(str(onnx_dir / "model_quantized.onnx")).graph
    scales = [i for i in graph.initializer if i.name.endswith("_scale") and "MatMul" in i.name]
    assert scales and all(list(s.dims) in ([16], [32]) for s in scales), [(s.name, list(s.dims)) for s in scales]
    cosine = (fp32 * q8).sum(-1) / (np.linalg.norm(fp32, axis=-1) * np.linalg.norm(q8, axis=-1))
    assert cosine.min() > 0.9
