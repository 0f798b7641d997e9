"""A checkpoint as a policy (`eval --policy hf:DIR`, the `toolenv.generate` worker) and the learning bench's loop."""

import json
import subprocess
import sys

from conftest import toolenv
from safetensors.torch import load_file


def _ask(process: subprocess.Popen, requests: list[dict]) -> dict:
    assert process.stdin is not None and process.stdout is not None
    for request in requests:
        process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    return {answer["id"]: answer for answer in (json.loads(process.stdout.readline()) for _ in requests)}


def test_the_worker_answers_each_request_by_id_batched_and_greedy(tiny_model):
    process = subprocess.Popen(
        [sys.executable, "-m", "toolenv.generate", "--model", str(tiny_model), "--max-seq-len", "600"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        ready = json.loads(process.stdout.readline())
        assert ready["ready"] is True and ready["parameters"] > 0
        messages = [{"role": "system", "content": "You are a tool-using agent."}, {"role": "user", "content": "hi"}]
        requests = [{"id": i, "messages": messages, "max_tokens": 12, "stop": ["<tools>"]} for i in range(3)]
        long = {"id": 9, "messages": [{"role": "user", "content": "word " * 2000}], "max_tokens": 12}
        answers = _ask(process, [*requests, long])
        assert sorted(answers) == [0, 1, 2, 9]
        texts = {answers[i]["text"] for i in range(3)}
        assert len(texts) == 1, "greedy decoding: the same conversation gives the same message in any batch"
        assert all(0 < answers[i]["completion_tokens"] <= 12 for i in range(3))
        assert "outgrew --max-seq-len 600" in answers[9]["error"]
        again = _ask(process, requests[:1])
        assert again[0]["text"] in texts
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        process.wait(timeout=30)
    assert process.returncode == 0


def test_eval_scores_a_checkpoint_as_a_policy(server, sft_run, single_tasks, tmp_path):
    out = toolenv(
        "eval", "--server", server.url, "--tasks", str(single_tasks), "--policy", f"hf:{sft_run / 'checkpoint'}",
        "--max-turns", "3", "--max-turn-tokens", "96", "--max-seq-len", "4096", "--max-observation-chars", "1200",
        "--out", str(tmp_path / "eval"), "--json",
    )  # fmt: skip
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    agent = summary["agents"][0]
    assert summary["policy"] == f"hf:{sft_run / 'checkpoint'}" and summary["tasks"] > 0
    assert agent["turns"] >= 1 and 0 <= agent["well_formed"] <= 1
    report = json.loads((tmp_path / "eval" / "report.json").read_text())
    assert report["max_observation_chars"] == 1200
    bad = toolenv("eval", "--server", server.url, "--tasks", str(single_tasks), "--policy", "hf:", check=False)
    assert bad.returncode == 2 and "--policy must be" in bad.stderr
    # The chat agent: the template is given the functions, the raw text goes to the episode's tool parser.
    chat = toolenv(
        "eval", "--server", server.url, "--tasks", str(single_tasks), "--policy", f"hf:{sft_run / 'checkpoint'}",
        "--agent", "chat", "--tool-parser", "hermes", "--max-turns", "2", "--max-turn-tokens", "32", "--json",
    )  # fmt: skip
    chat_agent = json.loads(chat.stdout.strip().splitlines()[-1])["agents"][0]
    assert chat_agent["agent"] == "chat" and chat_agent["turns"] >= 1 and chat_agent["r_step"] is None


def test_bench_learning_runs_every_stage_and_the_checkpoints_change(learning_library, tmp_path):
    out = tmp_path / "learning"
    run = toolenv(
        "bench", "--learning", "--library", str(learning_library), "--cache", str(tmp_path / "cache.db"),
        "--out", str(out), "--seeds", "1", "--train-tasks", "16", "--held-out", "3", "--size", "tiny",
        "--sft-epochs", "20", "--sft-lr", "1e-2", "--sft-batch", "2", "--rl-steps", "1", "--rl-group", "2",
        "--rl-batch", "1", "--max-turns", "3", "--max-turn-tokens", "96", "--max-seq-len", "3072", "--json",
        check=False,
    )  # fmt: skip
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert [s["stage"] for s in report["stages"]] == ["base", "sft", "rl"]
    for stage in report["stages"][:2]:
        for key in ("success", "well_formed", "r_step", "r_phase", "r_traj", "wall_s", "tokens_per_s"):
            assert isinstance(stage[key], (int, float)), (stage["stage"], key, stage[key])
    seed = out / "seed-1"
    base = load_file(seed / "model" / "model.safetensors")
    sft = load_file(seed / "train-sft" / "checkpoint" / "model.safetensors")
    assert any(not base[k].equal(sft[k]) for k in base), "SFT moved the weights"
    # A tiny model after a few SFT steps may write no well-formed turn yet: GRPO then refuses, and the benchmark
    # says so (exit 1, the reason in its report) instead of training on tied rewards.
    if run.returncode == 1:
        failures = report["failures"]
        assert failures and all("the protocol accepts" in f and " rl: " in f for f in failures), report
    else:
        assert run.returncode == 0 and not report["failures"], run.stderr
        assert isinstance(report["stages"][2]["r_traj"], (int, float))
        assert (seed / "train-rl" / "checkpoint" / "model.safetensors").exists()
        curve = report["stages"][2]["curve"]
        assert curve["steps"] == 1 and curve["prompts"] == 1 and set(curve["first"]) == {"r_traj", "r_step", "success"}
    # Each stage is also read against demonstrations of the held-out tasks (none are trained on).
    probed = (seed / "heldout-demonstrations" / "sft.jsonl").read_text().strip() != ""
    for stage in report["stages"][:2]:
        assert isinstance(stage["copy_accuracy"], float) if probed else stage["copy_accuracy"] is None
    # Evaluated on the dev side (the default), on APIs no training task uses.
    assert report["evaluated_on"] == "dev" and report["heldout_apis_seen_in_training"] == 0
    held = [json.loads(line) for line in (seed / "tasks-heldout.jsonl").read_text().splitlines()]
    train = [json.loads(line) for line in (seed / "tasks-train.jsonl").read_text().splitlines()]
    api = lambda tool: tool.split("__")[0]  # noqa: E731
    used = {api(t) for task in train for t in task["reference_tools"]}
    assert held and not any({api(t) for t in task["reference_tools"]} & used for task in held)


def test_bench_learning_from_a_given_base_trains_adapters(learning_library, tiny_model, tmp_path):
    """`--base DIR` starts every seed from that model as given (a pretrained one in practice: `model smollm2`), and
    `--lora` trains adapters, merged into each stage's checkpoint."""
    out = tmp_path / "learning"
    run = toolenv(
        "bench", "--learning", "--library", str(learning_library), "--cache", str(tmp_path / "cache.db"),
        "--out", str(out), "--seeds", "1", "--train-tasks", "16", "--held-out", "2", "--base", str(tiny_model),
        "--lora", "4", "--rl-lora-layers", "1", "--sft-epochs", "1", "--sft-lr", "1e-2", "--sft-batch", "4",
        "--rl-steps", "1", "--rl-group", "2", "--rl-batch", "1", "--rl-tasks", "2", "--max-turns", "3",
        "--max-turn-tokens", "48", "--max-seq-len", "3072", "--json", check=False,
    )  # fmt: skip
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["model"]["base"] == str(tiny_model) and report["model"]["size"] is None
    assert report["model"]["lora"] == 4 and report["model"]["parameters"] == sum(
        t.numel() for t in load_file(tiny_model / "model.safetensors").values()
    )
    seed = out / "seed-1"
    assert not (seed / "model").exists(), "the given base is used as it is, not rewritten per seed"
    # SFT adapts every block; --rl-lora-layers 1 puts GRPO's adapters on the last one alone.
    sft_config = json.loads((seed / "train-sft" / "train.json").read_text())
    assert sft_config["lora_rank"] == 4 and sft_config["lora_layers"] == 0
    assert json.loads((seed / "train-rl" / "train.json").read_text())["lora_layers"] == 1
    base = load_file(tiny_model / "model.safetensors")
    sft = load_file(seed / "train-sft" / "checkpoint" / "model.safetensors")
    changed = {k for k in base if not base[k].equal(sft[k])}
    blocks = json.loads((tiny_model / "config.json").read_text())["num_hidden_layers"]
    assert changed and all(k.endswith("proj.weight") for k in changed)
    assert {k.split(".")[2] for k in changed} == {str(b) for b in range(blocks)}
    # --rl-tasks 2: GRPO cycles through the first two training tasks.
    train = (seed / "tasks-train.jsonl").read_text().splitlines()
    assert (seed / "tasks-rl.jsonl").read_text().splitlines() == train[:2]
    if run.returncode == 0:
        assert len((seed / "train-rl" / "tasks.jsonl").read_text().splitlines()) == 2
        rl = load_file(seed / "train-rl" / "checkpoint" / "model.safetensors")
        moved = {k for k in sft if not sft[k].equal(rl[k])}
        assert all(k.startswith(f"model.layers.{blocks - 1}.") for k in moved)

    missing = toolenv("bench", "--learning", "--base", str(tmp_path / "nowhere"), check=False)
    assert missing.returncode == 2 and "not a Hugging Face model directory" in missing.stderr
    uneven = toolenv("bench", "--learning", "--rl-tasks", "3", "--rl-batch", "2", check=False)
    assert uneven.returncode == 2 and "must be a multiple of --rl-batch 2" in uneven.stderr
