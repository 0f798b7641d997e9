"""The encoder export on a tiny random BERT: ONNX with dynamic axes, written in the layout transformers.js reads."""

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("onnx")  # the exporter's dependency; scripts/setup-encoder installs it

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
