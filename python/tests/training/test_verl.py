"""verl does not train on a CPU, but its classes load: the agent loop runs with verl's real base class and config,
its `generate` scripted; the reward function, the GDPO estimator and the Hydra overrides are verl's own code."""

import asyncio
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch
import verl
from conftest import MAX_TURNS
from hydra import compose, initialize_config_dir
from scripted import episode_body, single_task
from transformers import AutoTokenizer
from trl.chat_template_utils import qwen2_5_chat_template
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
from verl.tools.tool_registry import initialize_tools_from_config
from verl.trainer.config import AlgoConfig
from verl.trainer.ppo.core_algos import compute_gdpo_outcome_advantage, compute_grpo_outcome_advantage
from verl.utils import torch_functional as verl_F
from verl.utils.config import omega_conf_to_dataclass
from verl.utils.dataset.rl_dataset import RLHFDataset
from verl.workers.rollout.replica import TokenOutput

from toolenv import ProblemError, ToolEnvClient
from toolenv.verl import (
    AGENT_NAME,
    CHAT_AGENT_NAME,
    REWARD_KEYS,
    REWARD_WEIGHTS,
    ToolEnvAgentLoop,
    ToolEnvChatAgentLoop,
    ToolEnvTool,
    agent_loop_config,
    compute_score,
    dataset_rows,
    gdpo_overrides,
    main,
    tool_config,
    write_dataset,
)

CONFIG_DIR = str(Path(verl.__file__).parent / "trainer" / "config")


def _config(tmp_path: Path, model: Path, **overrides):
    (tmp_path / "loop.yaml").touch()
    args = gdpo_overrides(
        train_files=str(tmp_path / "train.parquet"), model=str(model), agent_loop_config=str(tmp_path / "loop.yaml"),
        group=4, prompts_per_step=2, steps=2, max_prompt_length=2048, max_response_length=1024, gpus=1,
    )  # fmt: skip
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        return compose(config_name="ppo_trainer", overrides=args + [f"{k}={v}" for k, v in overrides.items()])


def test_overrides_compose_with_verls_hydra_configuration(tmp_path, tiny_model):
    config = _config(tmp_path, tiny_model)
    assert config.algorithm.adv_estimator == "gdpo"
    assert list(config.algorithm.gdpo_reward_keys) == REWARD_KEYS == ["r_traj", "r_phase", "r_step"]
    assert list(config.algorithm.gdpo_reward_weights) == REWARD_WEIGHTS == [1.0, 0.5, 0.25]
    assert (
        config.actor_rollout_ref.rollout.n == 4
        and config.actor_rollout_ref.rollout.agent.default_agent_loop == AGENT_NAME
    )
    assert config.actor_rollout_ref.actor.kl_loss_coef == 0.001 and config.actor_rollout_ref.actor.clip_ratio == 0.2
    assert config.reward.custom_reward_function.name == "compute_score"
    assert Path(config.reward.custom_reward_function.path).resolve() == Path(__import__("toolenv.verl").verl.__file__)
    algorithm = omega_conf_to_dataclass(config.algorithm)
    assert isinstance(algorithm, AlgoConfig) and algorithm.gdpo_reward_weights == REWARD_WEIGHTS


class ScriptedServer:
    """Stands in for verl's LLM server manager: answers each generate with the next scripted message's tokens."""

    def __init__(self, tokenizer, messages: list[str]):
        self.tokenizer = tokenizer
        self.messages = list(messages)
        self.calls: list[dict] = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs):
        self.calls.append({"prompt_ids": list(prompt_ids), "sampling_params": dict(sampling_params)})
        text = self.messages.pop(0)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        return TokenOutput(token_ids=ids, extra_fields={"global_steps": 3})


def _run(config, tokenizer, server_manager, url, **kwargs):
    """Builds the loop inside the event loop that runs it, as verl's workers do (the base class keeps that loop)."""

    async def go():
        loop = _loop(config, tokenizer, server_manager, url)
        return await loop.run(kwargs.pop("sampling_params"), **kwargs)

    return asyncio.run(go())


def _loop(config, tokenizer, server_manager, url):
    return ToolEnvAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=server_manager,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=RLHFDataset,
        data_config=DictConfigWrap(config.data),
        hf_model_type="qwen2",
        server_url=url,
    )


def test_agent_loop_speaks_text_turns_and_the_reward_reads_the_server(server, tiny_model, tmp_path, monkeypatch):
    assert _agent_loop_registry[AGENT_NAME]["_target_"] == "toolenv.verl.ToolEnvAgentLoop"
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    config = _config(tmp_path, tiny_model)
    task = single_task(server.tasks)
    tool = task["reference_tools"][0]
    call = json.dumps({"id": "c1", "tool": tool, "arguments": {}})
    # The first message imagines an observation: the stop sequence cuts it there.
    messages = [
        "<think>Search.</think><search_tool>list notes</search_tool><tool_response>made up",
        f"<think>Call.</think><tool_call>{call}</tool_call>",
        f"<think>Done.</think><answer>{' '.join(task['answer'])}</answer>",
    ]
    scripted = ScriptedServer(tokenizer, messages)
    extra_info = {"task": json.dumps(task), "seed": task["seed"] + 1, "episode": json.dumps({"max_turns": MAX_TURNS})}
    output = _run(
        config,
        tokenizer,
        scripted,
        server.url,
        sampling_params={"temperature": 1.0},
        raw_prompt=[],
        extra_info=extra_info,
    )

    assert len(output.response_ids) == len(output.response_mask)
    assert all(c["sampling_params"]["stop"] == ["<tool_response>", "<tools>", "<error>"] for c in scripted.calls)
    # Mask 1 exactly on what the model wrote (up to the stop), mask 0 on what ToolEnv answered.
    spans: list[tuple[int, list[int]]] = []
    for token, bit in zip(output.response_ids, output.response_mask, strict=True):
        if spans and spans[-1][0] == bit:
            spans[-1][1].append(token)
        else:
            spans.append((bit, [token]))
    assert [bit for bit, _ in spans] == [1, 0, 1, 0, 1]
    written = [tokenizer.decode(ids) for bit, ids in spans if bit == 1]
    assert written[0] == "<think>Search.</think><search_tool>list notes</search_tool>"
    assert written[1:] == [m + "<|im_end|>" for m in messages[1:]]
    observations = [tokenizer.decode(ids) for bit, ids in spans if bit == 0]
    assert "<tools>" in observations[0] and "<|im_start|>user" in observations[0]
    assert "<tool_response>" in observations[1] and observations[1].endswith("<|im_start|>assistant\n")
    # Each generate saw exactly the tokens so far: the prompt, then the turns in order.
    assert (
        scripted.calls[2]["prompt_ids"]
        == output.prompt_ids + output.response_ids[: len(scripted.calls[2]["prompt_ids"]) - len(output.prompt_ids)]
    )  # noqa: E501

    episode_id = output.extra_fields["toolenv_episode"]
    with ToolEnvClient(server.url) as client:
        expected = client.rewards(episode_id)
    monkeypatch.setenv("TOOLENV_RUN", str(tmp_path / "run"))
    score = compute_score("toolenv", "", "", extra_info={**output.extra_fields})
    assert {k: score[k] for k in REWARD_KEYS} == {k: expected[k] for k in REWARD_KEYS}
    assert score["success"] == 1.0 and expected["success"] is True
    assert score["score"] == pytest.approx(
        sum(w * expected[k] for k, w in zip(REWARD_KEYS, REWARD_WEIGHTS, strict=True))
    )
    record = json.loads(next((tmp_path / "run" / "episodes").iterdir()).read_text())
    assert record["episode"] == episode_id and record["step"] == 3 and record["turns"] == 3
    assert record["seed"] == task["seed"] + 1, "the row's seed, shared by the prompt's rollouts"
    with ToolEnvClient(server.url) as client, pytest.raises(ProblemError) as gone:
        client.trajectory(episode_id)
    assert gone.value.status == 404, "the reward function deletes the episode it scored"


def test_the_loop_stops_at_the_response_budget(server, tiny_model, tmp_path):
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    config = _config(tmp_path, tiny_model, **{"actor_rollout_ref.rollout.response_length": 64})
    scripted = ScriptedServer(tokenizer, ["<think>" + "thinking " * 50 + "</think><answer>x</answer>"] * 3)
    task = single_task(server.tasks)
    output = _run(
        config,
        tokenizer,
        scripted,
        server.url,
        sampling_params={},
        raw_prompt=[],
        extra_info={"task": json.dumps(task)},
    )
    assert len(output.response_ids) == 64 == len(output.response_mask) and set(output.response_mask) == {1}
    assert scripted.calls[0]["sampling_params"]["max_tokens"] == 64


def test_verls_gdpo_estimator_gives_toolenvs_decoupled_advantages(server):
    task = single_task(server.tasks)
    tool = task["reference_tools"][0]
    call = json.dumps({"id": "c1", "tool": tool, "arguments": {}})
    scripts = [
        ["<think>s</think><search_tool>list notes</search_tool>", f"<think>c</think><tool_call>{call}</tool_call>",
         f"<think>a</think><answer>{' '.join(task['answer'])}</answer>"],
        ["<think>s</think><search_tool>list notes</search_tool>", "<think>a</think><answer>no idea</answer>"],
        ["broken", "<think>a</think><answer>no idea</answer>"],
        ["<think>s</think><search_tool>list notes</search_tool>", f"<think>c</think><tool_call>{call}</tool_call>",
         "<think>a</think><answer>wrong</answer>"],
    ]  # fmt: skip
    with ToolEnvClient(server.url) as client:
        group = client.create_group(n=len(scripts), **episode_body(task))
        ids = [e["id"] for e in group["episodes"]]
        for episode_id, texts in zip(ids, scripts, strict=True):
            for text in texts:
                client.turn(episode_id, text)
        toolenv = client.group_advantages(group["id"])["episodes"]
        client.delete_group(group["id"])
    bs, length = len(ids), 5
    non_tensor = {key: np.array([e[key] for e in toolenv], dtype=np.float32) for key in REWARD_KEYS}
    index = np.array(["uid-0"] * bs, dtype=object)
    mask = torch.ones(bs, length)
    batch = {
        "prompts": torch.zeros(bs, 3, dtype=torch.long),
        "attention_mask": torch.ones(bs, 3 + length, dtype=torch.long),
    }
    config = AlgoConfig(adv_estimator="gdpo", gdpo_reward_keys=REWARD_KEYS, gdpo_reward_weights=REWARD_WEIGHTS)
    advantages, _ = compute_gdpo_outcome_advantage(
        token_level_rewards=torch.zeros(bs, length), response_mask=mask, index=index,
        config=config, non_tensor_batch=non_tensor, batch=batch,
    )  # fmt: skip
    # Per component, verl's group normalization is ToolEnv's (sample SD, ε = 1e-6).
    for key, name in zip(REWARD_KEYS, ("a_traj", "a_phase", "a_step"), strict=True):
        scores = torch.zeros(bs, length)
        scores[:, -1] = torch.tensor(non_tensor[key])
        per_key, _ = compute_grpo_outcome_advantage(scores, mask, index)
        assert torch.allclose(per_key[:, 0], torch.tensor([e[name] for e in toolenv], dtype=torch.float32), atol=1e-4)
    # Weighted the same; verl then whitens over the batch, which keeps ToolEnv's ratios.
    ours = torch.tensor([e["advantage"] for e in toolenv], dtype=torch.float32).unsqueeze(-1) * mask
    assert torch.allclose(advantages, verl_F.masked_whiten(ours, mask), atol=1e-4)
    assert len({round(e["advantage"], 6) for e in toolenv}) > 1


def test_dataset_rows_carry_the_servers_prompt_task_and_seed(server, tmp_path):
    tasks = [t for t in server.tasks][:3]
    with ToolEnvClient(server.url) as client:
        rows = dataset_rows(client, tasks, {"max_turns": MAX_TURNS})
        first = client.create_episode(**episode_body(tasks[0]), max_turns=MAX_TURNS)
        client.delete_episode(first["id"])
    table = pq.read_table(write_dataset(tmp_path / "train.parquet", rows)).to_pylist()
    assert [r["agent_name"] for r in table] == [AGENT_NAME] * 3
    assert table[0]["prompt"] == first["messages"]
    assert json.loads(table[0]["extra_info"]["task"]) == tasks[0]
    assert table[0]["extra_info"]["seed"] == tasks[0]["seed"]
    loop_file = agent_loop_config(tmp_path / "loop.yaml", server.url)
    entry = json.loads(loop_file.read_text())[0]
    assert entry["name"] == AGENT_NAME and entry["server_url"] == server.url


def _chat_tools(tmp_path: Path, url: str) -> dict[str, ToolEnvTool]:
    """verl's own loader on the file `tool_config` writes: ToolEnvTools with the server's schemas."""
    tools = initialize_tools_from_config(str(tool_config(tmp_path / "tools.yaml", url)))
    return {tool.name: tool for tool in tools}


def test_chat_tools_load_from_the_config_and_run_an_episode_per_instance(server, tmp_path):
    tools = _chat_tools(tmp_path, server.url)
    assert list(tools) == ["search_tool", "call_tool"] and all(isinstance(t, ToolEnvTool) for t in tools.values())
    with ToolEnvClient(server.url) as client:
        created = client.create_episode(protocol="chat")
        client.delete_episode(created["id"])
    schema = tools["search_tool"].get_openai_tool_schema().model_dump(exclude_none=True)
    assert schema["function"]["description"] == created["functions"][0]["function"]["description"]
    # A config without a schema takes the server's.
    bare = ToolEnvTool({"type": "native", "server_url": server.url, "name": "call_tool"}, None)
    assert bare.tool_schema == tools["call_tool"].tool_schema
    task = single_task(server.tasks)
    tool = task["reference_tools"][0]

    async def lifecycle() -> tuple[str, list[str], float]:
        search, call = tools["search_tool"], tools["call_tool"]
        instance, _ = await search.create(create_kwargs={"task": json.dumps(task), "seed": task["seed"]})
        found, _, _ = await search.execute(instance, {"query": "list notes"})
        # Instances are shared by the process's tools: call_tool acts on the episode search_tool opened.
        called, _, _ = await call.execute(instance, {"tool": tool, "arguments": {}})
        episode = ToolEnvTool._instances[instance].episode
        reward = await call.calc_reward(instance, answer=" ".join(task["answer"]))
        await search.release(instance)
        return episode, [found.text, called.text], reward

    episode, texts, reward = asyncio.run(lifecycle())
    assert tool in [r["id"] for r in json.loads(texts[0])["results"]]
    assert json.loads(texts[1])["status"] == 200
    assert reward > 1.5, "R_traj of a solved episode: its recalls and R_ans"
    with ToolEnvClient(server.url) as client, pytest.raises(ProblemError) as gone:
        client.trajectory(episode)
    assert gone.value.status == 404, "release deletes the episode create opened"


def _hermes(name: str, arguments: dict) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def test_chat_agent_loop_runs_verls_tool_loop_on_one_episode_and_sends_the_answer(server, tiny_model, tmp_path):
    assert _agent_loop_registry[CHAT_AGENT_NAME]["_target_"] == "toolenv.verl.ToolEnvChatAgentLoop"
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    # verl renders the tools with the model's chat template: the tiny model's has none, Qwen2.5's (TRL ships it) has.
    tokenizer.chat_template = qwen2_5_chat_template
    config = _config(tmp_path, tiny_model, **{"actor_rollout_ref.rollout.multi_turn.max_tool_response_length": 8192})
    task = single_task(server.tasks)
    with ToolEnvClient(server.url) as client:
        row = dataset_rows(client, [task], {"protocol": "chat", "max_turns": MAX_TURNS})[0]
    assert row["agent_name"] == CHAT_AGENT_NAME
    scripted = ScriptedServer(
        tokenizer,
        [
            _hermes("search_tool", {"query": "list notes"}),
            _hermes("call_tool", {"tool": task["reference_tools"][0], "arguments": {}}),
            " ".join(task["answer"]),
        ],
    )

    async def go():
        loop = ToolEnvChatAgentLoop(
            trainer_config=DictConfigWrap(config), server_manager=scripted, tokenizer=tokenizer, processor=None,
            dataset_cls=RLHFDataset, data_config=DictConfigWrap(config.data), hf_model_type="qwen2",
            tools=ToolListWrap(list(_chat_tools(tmp_path, server.url).values())), server_url=server.url,
        )  # fmt: skip
        return await loop.run({"temperature": 1.0}, raw_prompt=row["prompt"], extra_info=row["extra_info"])

    output = asyncio.run(go())
    assert len(scripted.calls) == 3 and not ToolEnvTool._instances, "each call's instance was released"
    # The tools' schemas were in the prompt; the tool messages carry mask 0.
    assert '"name": "call_tool"' in tokenizer.decode(scripted.calls[0]["prompt_ids"])
    bits = [b for i, b in enumerate(output.response_mask) if i == 0 or b != output.response_mask[i - 1]]
    assert bits == [1, 0, 1, 0, 1]
    episode_id = output.extra_fields["toolenv_episode"]
    with ToolEnvClient(server.url) as client:
        trajectory = client.trajectory(episode_id)
        expected = client.rewards(episode_id)
    assert trajectory["protocol"] == "chat" and trajectory["seed"] == task["seed"]
    assert len(trajectory["turns"]) == 3 and trajectory["finish"] == "answer"
    assert trajectory["answer"] == " ".join(task["answer"]), "the answer without the end token"
    score = compute_score("toolenv", "", "", extra_info={**output.extra_fields})
    assert score["success"] == 1.0 and score["r_traj"] == expected["r_traj"] and score["r_step"] == 0.0


def test_cli_writes_the_tool_and_agent_loop_configs(server, tmp_path):
    assert main(["--tool-config", str(tmp_path / "t.yaml"), "--agent-loop-config", str(tmp_path / "a.yaml"),
                 "--server", server.url, "--k", "3"]) == 0  # fmt: skip
    tools = json.loads((tmp_path / "t.yaml").read_text())["tools"]
    assert [t["tool_schema"]["function"]["name"] for t in tools] == ["search_tool", "call_tool"]
    assert "top 3" in tools[0]["tool_schema"]["function"]["description"]
    loops = json.loads((tmp_path / "a.yaml").read_text())
    assert [e["name"] for e in loops] == [AGENT_NAME, CHAT_AGENT_NAME]
