"""`toolenv train` end to end, as a user runs it: the CLI serves or reaches the server, writes RUN, launches TRL."""

import json
import subprocess
import sys

from conftest import MAX_TURNS, serving, toolenv
from safetensors.torch import load_file


def _weights_differ(a, b) -> bool:
    first, second = load_file(a / "model.safetensors"), load_file(b / "model.safetensors")
    return first.keys() == second.keys() and any(not first[k].equal(second[k]) for k in first)


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sft_from_given_conversations(sft_run, tiny_model):
    summary = json.loads((sft_run / "train.json").read_text())
    assert summary["stage"] == "sft" and summary["sft_data"].endswith("short.jsonl")
    metrics = _lines(sft_run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == list(range(1, 81))
    assert all(isinstance(m["loss"], float) and m["wall_s"] is not None for m in metrics)
    assert metrics[-1]["loss"] < metrics[0]["loss"]
    assert _weights_differ(tiny_model, sft_run / "checkpoint")


def test_sft_on_demonstrations_the_heuristic_policy_makes(server, tiny_model, tmp_path):
    run = tmp_path / "demo"
    out = toolenv(
        "train", "--stage", "sft", "--model", str(tiny_model), "--library", str(server.library),
        "--cache", str(tmp_path / "cache.db"), "--tasks", str(server.tasks_file), "--steps", "2", "--batch", "2",
        "--out", str(run), "--json",
    )  # fmt: skip
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    demos = summary["demonstrations"]
    assert demos["runs"] == len(server.tasks) and demos["kept"] >= 1
    records = _lines(run / "sft.jsonl")
    assert len(records) == demos["kept"]
    assert all(r["messages"][0]["role"] == "system" and r["messages"][-1]["role"] == "assistant" for r in records)
    assert all("<answer>" in r["messages"][-1]["content"] for r in records)
    assert len(_lines(run / "metrics.jsonl")) == 2 and _weights_differ(tiny_model, run / "checkpoint")


def test_sft_with_lora_saves_the_adapters_merged(short_data, tiny_model, server, tmp_path):
    run = tmp_path / "lora"
    toolenv(
        "train", "--stage", "sft", "--model", str(tiny_model), "--data", str(short_data), "--server", server.url,
        "--steps", "3", "--batch", "2", "--lr", "1e-2", "--lora", "4", "--lora-layers", "1", "--out", str(run),
        "--json",
    )  # fmt: skip
    config = json.loads((run / "train.json").read_text())
    assert config["lora_rank"] == 4 and config["lora_layers"] == 1
    checkpoint = run / "checkpoint"
    # A plain model, loadable as the next stage's base: no adapter files, no adapter tensor names.
    assert not (checkpoint / "adapter_config.json").exists()
    base, tuned = load_file(tiny_model / "model.safetensors"), load_file(checkpoint / "model.safetensors")
    assert tuned.keys() == base.keys()
    changed = {k for k in base if not base[k].equal(tuned[k])}
    # The adapters sit on the linear layers; merged, they moved exactly those (embeddings and norms stay the base's).
    assert changed and all(k.endswith("proj.weight") for k in changed)
    assert not any(k.startswith("model.embed_tokens") or "norm" in k for k in changed)
    # --lora-layers 1: on the last decoder block only.
    blocks = json.loads((tiny_model / "config.json").read_text())["num_hidden_layers"]
    assert all(k.startswith(f"model.layers.{blocks - 1}.") for k in changed)


def test_rl_two_steps_from_the_sft_checkpoint(server, sft_run, single_tasks, tmp_path):
    run = tmp_path / "rl"
    out = toolenv(
        "train", "--engine", "trl", "--stage", "rl", "--model", str(sft_run / "checkpoint"), "--server", server.url,
        "--tasks", str(single_tasks), "--steps", "2", "--group", "4", "--batch", "2", "--lr", "1e-4",
        "--max-turns", str(MAX_TURNS), "--max-turn-tokens", "128", "--max-response-tokens", "1024",
        "--out", str(run), "--json",
    )  # fmt: skip
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["steps"] == 2 and summary["checkpoint"] == str(run / "checkpoint")
    metrics = _lines(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2]
    for m in metrics:
        assert m["episodes"] == 8 and m["turns"] >= 1 and m["tokens"] > 0
        assert all(isinstance(m[k], (int, float)) for k in ("r_step", "r_phase", "r_traj", "success", "wall_s"))
    records = _lines(next((run / "episodes").iterdir()))
    assert len(records) == 16
    # GRPO learns only from a group whose rewards vary (else every advantage is 0): the weights move exactly then.
    groups: dict = {}
    for r in records:
        groups.setdefault((r["step"], r["group"]), set()).add((r["r_traj"], r["r_phase"], r["r_step"]))
    varied = any(len(rewards) > 1 for rewards in groups.values())
    assert _weights_differ(sft_run / "checkpoint", run / "checkpoint") == varied
    assert "step 2/2" in out.stderr
    launch = (run / "launch.sh").read_text()
    assert "-m toolenv.trl" in launch and "TOOLENV_URL" in launch


def test_verl_dry_run_prints_the_gdpo_command(server, tiny_model, single_tasks, tmp_path):
    run = tmp_path / "verl"
    out = toolenv(
        "train", "--engine", "verl", "--model", str(tiny_model), "--server", server.url, "--tasks", str(single_tasks),
        "--gpus", "2", "--set", "trainer.save_freq=10", "--lora", "8", "--out", str(run), "--dry-run", "--json",
    )  # fmt: skip
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["command"][-2:] == ["toolenv.verl", str(run / "train.json")]
    assert (run / "launch.sh").exists() and (run / "tasks.jsonl").exists()
    printed = subprocess.run(
        [sys.executable, "-m", "toolenv.verl", str(run / "train.json"), "--print"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    expected = [
        "verl.trainer.main_ppo", "algorithm.adv_estimator=gdpo", "+algorithm.gdpo_reward_keys=[r_traj,r_phase,r_step]",
        "+algorithm.gdpo_reward_weights=[1.0,0.5,0.25]", "actor_rollout_ref.rollout.n=8", "trainer.n_gpus_per_node=2",
        "trainer.save_freq=10", "actor_rollout_ref.model.lora_rank=8", "actor_rollout_ref.model.lora_alpha=16",
        # The paper's 256 prompts a step shrink to the task file: a batch larger than the data would yield no step.
        f"data.train_batch_size={len(single_tasks.read_text().splitlines())}",
    ]  # fmt: skip
    for part in expected:
        assert part in printed, part


def test_bad_input_is_one_line_and_exit_2(server, tiny_model, tmp_path):
    misspelled = tmp_path / "misspelled.jsonl"
    misspelled.write_text(json.dumps({"id": "t1", "query": "q", "reference_tools": ["no_such__tool"]}) + "\n")
    cases = [
        ([], "--model DIR is required"),
        (["--model", str(tiny_model), "--group", "1"], "--group must be at least 2"),
        (["--model", str(tiny_model), "--server", server.url], "--server needs --tasks"),
        (["--model", str(tmp_path / "none")], "no such directory"),
        (["--model", str(tiny_model), "--stage", "sft", "--data", str(tmp_path / "none.jsonl")], "no such file"),
        (["--model", str(tiny_model), "--engine", "nope"], "nope"),
        (["--model", str(tiny_model), "--data", str(tmp_path / "x.jsonl")], "--data is for --stage sft"),
        (["--model", str(tiny_model), "--server", server.url, "--tasks", str(misspelled)], '"no_such__tool" (task'),
        (
            ["--model", str(tiny_model), "--server", server.url, "--tasks", str(server.tasks_file), "--batch", "999"],
            "--batch 999: one step takes that many prompts, but there are only",
        ),
        (["--model", str(tiny_model), "--max-observation-chars", "10"], "--max-observation-chars must be an integer"),
        (["--model", str(tiny_model), "--lora-layers", "2"], "give their rank with --lora"),
        (["--model", str(tiny_model), "--engine", "verl", "--lora", "8", "--lora-layers", "2"], "is TRL’s"),
    ]
    for args, message in cases:
        run = toolenv("train", *args, "--out", str(tmp_path / "r"), check=False)
        assert run.returncode == 2, (args, run.stderr)
        assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_rl_against_a_server_with_a_key(server, sft_run, single_tasks, tmp_path):
    with serving(server.library, tmp_path / "c.db", "--api-key", "sekret") as url:
        run = tmp_path / "keyed"
        toolenv(
            "train", "--model", str(sft_run / "checkpoint"), "--server", url, "--api-key", "sekret",
            "--tasks", str(single_tasks), "--steps", "1", "--group", "2", "--batch", "1", "--max-turns", str(MAX_TURNS),
            "--max-turn-tokens", "64", "--max-response-tokens", "512", "--out", str(run), "--json",
            env={"TOOLENV_API_KEY": ""},
        )  # fmt: skip
    assert len(_lines(run / "metrics.jsonl")) == 1, "the engine reached the keyed server with the key it was given"


def test_rl_from_a_base_that_cannot_write_the_protocol_exits_1(server, tiny_model, single_tasks, tmp_path):
    run = tmp_path / "random-rl"
    out = toolenv(
        "train", "--engine", "trl", "--stage", "rl", "--model", str(tiny_model), "--server", server.url,
        "--tasks", str(single_tasks), "--steps", "2", "--group", "2", "--batch", "1", "--max-turns", "2",
        "--max-turn-tokens", "24", "--max-response-tokens", "256", "--out", str(run), check=False,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "the protocol accepts" in last and "--stage sft first" in last, out.stderr
    assert "Traceback" not in out.stderr
