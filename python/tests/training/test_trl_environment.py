"""`ToolEnvEnvironment` under TRL's real GRPOTrainer: its probing, pooling, resets, tool-calling loop and rewards.

A random tiny model never writes a tool call, so the trainer's generation is scripted (the tokens a tool-calling
model would write, by the turn); everything else, the training step included, is TRL's own code against a live
server. The tiny model's ChatML template cannot render tools: it takes TRL's packaged Qwen2.5 template, which TRL
knows how to parse tool calls out of.
"""

import functools
import json

import pytest
import torch
from conftest import MAX_TURNS
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOTrainer
from trl.chat_template_utils import qwen2_5_chat_template

from toolenv import ProblemError, ToolEnvClient
from toolenv.trl import ToolEnvEnvironment, chat_dataset, chat_r_phase, grpo_config


def _tasks(server) -> list[dict]:
    return [t for t in server.tasks if t["meta"]["kind"] == "single"][:2]


def _hermes(name: str, arguments: dict) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


class ScriptedTurns:
    """Stands in for `_generate_single_turn`: even rollouts of a batch search, call the task's tool and answer it;
    odd ones answer at once, wrongly. Each prompt's task is found by its query, its turn by the tool responses."""

    def __init__(self, tokenizer, tasks: list[dict]):
        self.tokenizer = tokenizer
        self.tasks = tasks

    def __call__(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        out = []
        for index, ids in enumerate(prompt_ids):
            text = self.tokenizer.decode(ids)
            task = next(t for t in self.tasks if t["query"] in text)
            call = task["meta"]["calls"][0]
            seen = text.count("<tool_response>")
            if seen == 0 and index % 2:
                message = "I cannot tell."
            elif seen == 0:
                message = _hermes("search_tool", {"query": task["query"]})
            elif seen == 1:
                message = _hermes("call_tool", {"tool": call["tool"], "arguments": call["arguments"]})
            else:
                message = " ".join(task["answer"])
            out.append(self.tokenizer.encode(message, add_special_tokens=False) + [self.tokenizer.eos_token_id])
        return out, None


def test_environment_factory_plays_chat_episodes_under_grpo(server, tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    tokenizer.chat_template = qwen2_5_chat_template
    tasks = _tasks(server)
    group = 2
    with ToolEnvClient(server.url) as client:
        dataset = chat_dataset(client, tasks, max_turns=MAX_TURNS)
    args = grpo_config(
        str(tmp_path / "out"), num_generations=group, per_device_train_batch_size=2 * group, max_steps=2,
        max_completion_length=2048, learning_rate=1e-3, logging_steps=1, seed=0, reward_weights=[0.5],
    )  # fmt: skip
    trainer = GRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(tiny_model), reward_funcs=[chat_r_phase], args=args,
        train_dataset=dataset, processing_class=tokenizer,
        environment_factory=functools.partial(ToolEnvEnvironment, server.url, max_turns=MAX_TURNS),
    )  # fmt: skip
    # TRL found the tools among the public methods and made get_reward a reward of weight 1 after chat_r_phase.
    assert [t.__name__ for t in trainer.tools] == ["call_tool", "search_tool"]
    assert trainer.reward_func_names == ["chat_r_phase", "ToolEnvEnvironment"]
    assert trainer.reward_weights.tolist() == [0.5, 1.0]

    trainer._generate_single_turn = ScriptedTurns(tokenizer, tasks)
    seen: list[dict] = []
    score = trainer._generate_and_score_completions

    def keep(inputs):
        output = score(inputs)
        # The episodes live until the pooled environments' next reset: read them now.
        with ToolEnvClient(server.url) as client:
            episodes = [e._episode for e in trainer.environments]
            seen.append(
                {
                    "prompt": tokenizer.decode(output["prompt_ids"][0][output["prompt_mask"][0].bool()]),
                    # 0 on the completion's tokens that the environment wrote.
                    "env_tokens": ((output["tool_mask"] == 0) & output["completion_mask"].bool()).sum(dim=1).tolist(),
                    "trajectories": [client.trajectory(e) for e in episodes],
                    "rewards": [client.rewards(e) for e in episodes],
                    "advantages": output["advantages"].tolist(),
                }
            )
        return output

    trainer._generate_and_score_completions = keep
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    assert any(not torch.equal(before[n], p.detach()) for n, p in trainer.model.named_parameters())

    # One instance per rollout, reused across steps: the pool never grew past the batch.
    assert len(trainer._environment_pool[None]) == 2 * group
    logged = [h for h in trainer.state.log_history if "rewards/ToolEnvEnvironment/mean" in h]
    assert len(seen) == len(logged) == 2
    for step, log in zip(seen, logged, strict=True):
        # The prompt is the server's, with the environment's two tools rendered from their signatures.
        assert '"name": "search_tool"' in step["prompt"] and '"name": "call_tool"' in step["prompt"]
        trajectories, rewards = step["trajectories"], step["rewards"]
        assert all(t["protocol"] == "chat" and t["finish"] == "answer" for t in trajectories)
        # Solvers: search, call and answer, one call a turn; the others answered at once.
        assert [len(t["turns"]) for t in trajectories] == [3, 1] * group
        assert [r["success"] for r in rewards] == [True, False] * group
        assert all(r["r_step"] is None for r in rewards)
        # What TRL logged is the server's R_traj and R_phase; tool results carry no loss, the answers do.
        assert log["rewards/ToolEnvEnvironment/mean"] == pytest.approx(sum(r["r_traj"] for r in rewards) / 4)
        assert log["rewards/chat_r_phase/mean"] == pytest.approx(sum(r["r_phase"] for r in rewards) / 4)
        assert [n > 0 for n in step["env_tokens"]] == [True, False] * group
        assert step["advantages"][0] > 0 > step["advantages"][1]
    # The episodes of a step are deleted by the next step's resets.
    with ToolEnvClient(server.url) as client, pytest.raises(ProblemError):
        client.trajectory(seen[0]["trajectories"][0]["id"])


def test_environment_rows_take_a_task_dict_or_its_fields_and_a_seed(server):
    task = _tasks(server)[0]
    environment = ToolEnvEnvironment(server.url)
    environment.reset(task={k: task[k] for k in ("id", "query", "reference_tools", "answer")}, seed=7)
    with ToolEnvClient(server.url) as client:
        first = client.trajectory(environment._episode)
        assert first["seed"] == 7 and first["protocol"] == "chat"
        found = json.loads(environment.search_tool("list notes", k=2))
        assert len(found["results"]) == 2
        environment.reset(prompt=[], **{k: task[k] for k in ("id", "query", "reference_tools", "answer")})
        with pytest.raises(ProblemError):
            client.trajectory(first["id"])
        assert environment.get_reward() is not None
