"""`toolenv export` rows read back as TRL's SFTTrainer reads them: datasets' JSON loader, then the trainer's own
tokenization, with a chat template that renders tools and reads OpenAI's string arguments (TRL's packaged Qwen3 one)."""

import json

from conftest import toolenv
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer
from trl.chat_template_utils import qwen3_chat_template


def test_exported_runs_load_into_trl_sft_as_tool_calls(server, single_tasks, tiny_model, tmp_path):
    out = tmp_path / "eval"
    toolenv(
        "eval", "--server", server.url, "--tasks", str(single_tasks), "--agent", "paraact,chat", "--seed", "1",
        "--max-turns", "6", "--out", str(out), "--json",
    )  # fmt: skip
    runs = sorted(str(p) for p in (out / "trajectories").rglob("*.json"))
    rows_file = tmp_path / "chat.jsonl"
    export = toolenv("export", *runs, "--out", str(rows_file), "--library", str(server.library), "--json")
    summary = json.loads(export.stdout.strip().splitlines()[-1])
    assert summary["rows"] > 0 and summary["rows"] + len(summary["skipped"]) == len(runs)

    dataset = load_dataset("json", data_files=str(rows_file), split="train")
    assert set(dataset.column_names) >= {"messages", "tools"}
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    tokenizer.chat_template = qwen3_chat_template
    args = SFTConfig(
        output_dir=str(tmp_path / "sft"), max_steps=1, max_length=8192, report_to=[], bf16=False, use_cpu=True
    )
    trainer = SFTTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_model), args=args, train_dataset=dataset,
        processing_class=tokenizer,
    )  # fmt: skip
    text = tokenizer.decode(trainer.train_dataset[0]["input_ids"])
    # The functions in the system turn, a native call with its arguments as JSON, the tool's answer, the final answer.
    assert '"name": "search_tool"' in text and '"name": "call_tool"' in text
    assert '<tool_call>\n{"name": "search_tool", "arguments": {"query":"' in text
    assert '<tool_call>\n{"name": "call_tool", "arguments": {"tool":"' in text and "<tool_response>" in text
    assert dataset[0]["messages"][-1]["content"] in text
