"""verl integration: the `toolenv_paraact` agent loop, the reward function, the GDPO configuration and the dataset.

- `ToolEnvAgentLoop` (registered as `toolenv_paraact`): one ParaAct episode per rollout. It generates until the model
  ends its message (its end token, or a stop sequence where it would write an observation), sends the text to
  `/turns`, appends the observation ToolEnv answers as the next user turn, and stops on `done` or when the response
  budget is spent. Assistant tokens carry mask 1, the environment's mask 0; the episode id rides in `extra_fields`.
- `compute_score`: reads the episode's rewards from the server and answers `score` with `r_step`, `r_phase`,
  `r_traj` (and the rest), which verl's GDPO estimator normalizes one by one within each prompt's group.
- `gdpo_overrides`: the Hydra overrides for that estimator with λτ, λp, λs = 1.0, 0.5, 0.25 and the paper's PPO
  settings; verl ≥ 0.9 carries `algorithm.adv_estimator=gdpo` with `gdpo_reward_keys` / `gdpo_reward_weights`.
- `write_dataset`: parquet rows with `agent_name`, the prompt the server gives a new episode, the task and its seed
  in `extra_info`.
- `chat` episodes (native tool calling) run on verl's own ToolAgentLoop: `ToolEnvTool` is `search_tool` and
  `call_tool` as `BaseTool`s, `tool_config` writes the file `multi_turn.tool_config_path` names, and
  `ToolEnvChatAgentLoop` (registered as `toolenv_chat`) gives each rollout its episode and sends its final answer.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import AgentData, AgentState, ToolAgentLoop
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from toolenv.client import ENGINE_CHAT, AsyncToolEnvClient, Json, ProblemError, ToolEnvClient, resolve_url
from toolenv.records import RecordWriter, episode_record
from toolenv.run import RunConfig, episode_body
from toolenv.tokens import EnvTurns, message_tokens

AGENT_NAME = "toolenv_paraact"
CHAT_AGENT_NAME = "toolenv_chat"
CHAT_FUNCTIONS = ("search_tool", "call_tool")
# The GDPO reward keys and their weights: λτ, λp, λs (paper, C.4).
REWARD_KEYS = ["r_traj", "r_phase", "r_step"]
REWARD_WEIGHTS = [1.0, 0.5, 0.25]
DATA_SOURCE = "toolenv"


@register(AGENT_NAME)
class ToolEnvAgentLoop(AgentLoopBase):
    """A ParaAct rollout against a ToolEnv server: verl generates, ToolEnv parses, runs and answers."""

    def __init__(self, *args: Any, server_url: str | None = None, max_turn_tokens: int = 1024, **kwargs: Any):
        kwargs.pop("tools", None)
        kwargs.pop("name", None)
        super().__init__(*args, **kwargs)
        self.server_url = resolve_url(server_url)
        self.max_turn_tokens = max_turn_tokens
        self.response_length = self.rollout_config.response_length

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        extra = kwargs.get("extra_info") or {}
        task = _json(extra.get("task"))
        options = _json(extra.get("episode")) or {}
        body = episode_body(task)
        # The row's seed: the n rollouts of one prompt share it, so a group meets one world, as a ToolEnv group does.
        if extra.get("seed") is not None:
            body["seed"] = int(extra["seed"])
        async with AsyncToolEnvClient(self.server_url) as client:
            episode = await client.create_episode(**body, **options)
            prompt_ids = await self.ct_build_initial_tokens(episode["messages"])
            env_turns = EnvTurns(self.tokenizer)
            stop = list(episode.get("stop", []))
            request_id = uuid4().hex
            response_mask: list[int] = []
            logprobs: list[float] | None = None
            extra_fields: dict[str, Any] = {}
            turns = 0
            while len(response_mask) < self.response_length:
                room = min(self.max_turn_tokens, self.response_length - len(response_mask))
                params = {**sampling_params, "stop": stop, "max_tokens": room}
                output = await self.server_manager.generate(
                    request_id=request_id, prompt_ids=prompt_ids, sampling_params=params
                )
                # The rollout server's own fields (global_steps) reach the reward function through extra_fields.
                extra_fields.update(output.extra_fields)
                kept, text = message_tokens(self.tokenizer, list(output.token_ids), stop, room)
                sampled = list(output.log_probs[: len(kept)]) if output.log_probs else None
                if sampled is not None and logprobs is None:
                    logprobs = [0.0] * len(response_mask)
                merged, response_mask, aligned = await self.ct_merge_assistant_token(
                    prompt_ids, kept, response_mask, logprobs, assistant_logprobs=sampled
                )
                logprobs = aligned
                prompt_ids = merged.token_ids
                answer = await client.turn(episode["id"], text)
                turns += 1
                if answer["done"] or len(response_mask) >= self.response_length:
                    break
                ended = bool(kept) and kept[-1] == self.tokenizer.eos_token_id
                added = env_turns.after_assistant(answer["observation"]["content"], ended_by_eos=ended)
                prompt_ids = prompt_ids + added
                response_mask = response_mask + [0] * len(added)
                if logprobs is not None:
                    logprobs = logprobs + [0.0] * len(added)
        response_ids = prompt_ids[len(prompt_ids) - len(response_mask) :]
        prompt_only = prompt_ids[: len(prompt_ids) - len(response_mask)]
        result = AgentLoopOutput(
            prompt_ids=prompt_only,
            response_ids=response_ids[: self.response_length],
            response_mask=response_mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] if logprobs is not None else None,
            num_turns=2 * turns + 1,
            metrics={},
            extra_fields={
                **extra_fields,
                "toolenv_episode": episode["id"],
                "toolenv_url": self.server_url,
                "toolenv_tokens": sum(response_mask),
            },
        )
        result.extra_fields.update({"turn_scores": [], "tool_rewards": []})
        return result


@dataclass
class _Instance:
    episode: str
    # Opened by `create` (deleted by `release`), or the agent loop's (its reward function deletes it).
    owned: bool
    calls: int = 0
    done: bool = False


class ToolEnvTool(BaseTool):
    """One of a ToolEnv `chat` episode's functions (`search_tool` or `call_tool`, as the tool config names it) as a
    verl `BaseTool`: every `execute` is a one-call turn of the instance's episode, its tool message the response.

    An instance is an episode: `create(create_kwargs={"task": ..., "seed"?: ..., "episode"?: {...}})` opens one
    (deleted by `release`), `create(create_kwargs={"episode_id": ...})` joins one that the agent loop opened.
    Instances are shared by the tool objects of a process, so `search_tool` and `call_tool` act on the same episode.
    verl's ToolAgentLoop creates and releases an instance around every call, hence `toolenv_chat`
    (`ToolEnvChatAgentLoop`), which opens the rollout's episode and hands its id to each call. The config's
    `server_url` (else TOOLENV_URL) is the server.
    """

    _instances: ClassVar[dict[str, _Instance]] = {}

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema | None = None):
        self.server_url = resolve_url(config.get("server_url"))
        super().__init__(config, tool_schema)

    def get_openai_tool_schema(self) -> OpenAIFunctionToolSchema:
        """The config's `tool_schema`, else the server's own spec of the function the config's `name` names."""
        if getattr(self, "tool_schema", None) is not None:
            return self.tool_schema
        return OpenAIFunctionToolSchema.model_validate(_chat_function(self.server_url, self.config["name"]))

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        instance_id = instance_id or uuid4().hex
        given = kwargs.get("create_kwargs") or {}
        if given.get("episode_id"):
            self._instances[instance_id] = _Instance(episode=given["episode_id"], owned=False)
            return instance_id, ToolResponse()
        if given.get("task") is None:
            raise ValueError("create_kwargs needs the task of the episode to open, or the episode_id to join")
        body = episode_body(_json(given["task"]))
        if given.get("seed") is not None:
            body["seed"] = int(given["seed"])
        options = {**(_json(given.get("episode")) or {}), **ENGINE_CHAT}
        async with AsyncToolEnvClient(self.server_url) as client:
            episode = await client.create_episode(**body, **options)
        self._instances[instance_id] = _Instance(episode=episode["id"], owned=True)
        return instance_id, ToolResponse()

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
    ) -> tuple[ToolResponse, float, dict]:
        instance = self._instances[instance_id]
        instance.calls += 1
        # Unique in the episode: verl does not pass the model's call id, and an instance may serve many calls.
        call = {
            "id": f"{instance_id}-{instance.calls}",
            "type": "function",
            "function": {"name": self.name, "arguments": parameters},
        }
        async with AsyncToolEnvClient(self.server_url) as client:
            answer = await client.turn(
                instance.episode, message={"role": "assistant", "content": "", "tool_calls": [call]}
            )
        instance.done = answer["done"]
        return ToolResponse(text=answer["messages"][0]["content"]), 0.0, {}

    async def calc_reward(self, instance_id: str, answer: str | None = None, **kwargs: Any) -> float:
        """R_traj of the instance's episode, after `answer` (the final message's text) ends it when it is going."""
        instance = self._instances[instance_id]
        async with AsyncToolEnvClient(self.server_url) as client:
            if answer is not None and not instance.done:
                ended = await client.turn(instance.episode, message={"role": "assistant", "content": answer})
                instance.done = ended["done"]
            rewards = await client.rewards(instance.episode)
        return float(rewards["r_traj"]) if rewards.get("r_traj") is not None else 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        instance = self._instances.pop(instance_id, None)
        if instance is not None and instance.owned:
            async with AsyncToolEnvClient(self.server_url) as client:
                await client.delete_episode(instance.episode)


@register(CHAT_AGENT_NAME)
class ToolEnvChatAgentLoop(ToolAgentLoop):
    """verl's ToolAgentLoop on a ToolEnv `chat` episode: it opens the row's episode (task, seed and options from
    `extra_info`, as `dataset_rows` writes them), every `ToolEnvTool` call runs in it, and the final message (one
    without tool calls) is sent as the answer. The episode id rides in `extra_fields` to `compute_score`. verl makes
    one loop object per rollout, so the episode is the object's."""

    def __init__(self, *args: Any, server_url: str | None = None, **kwargs: Any):
        kwargs.pop("name", None)
        super().__init__(*args, **kwargs)
        self.server_url = resolve_url(server_url)
        self.episode_id: str | None = None

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        extra = kwargs.get("extra_info") or {}
        body = episode_body(_json(extra.get("task")))
        if extra.get("seed") is not None:
            body["seed"] = int(extra["seed"])
        options = {**(_json(extra.get("episode")) or {}), **ENGINE_CHAT}
        async with AsyncToolEnvClient(self.server_url) as client:
            self.episode_id = (await client.create_episode(**body, **options))["id"]
        join = {"create_kwargs": {"episode_id": self.episode_id}}
        ours = {name: join for name, tool in self.tools.items() if isinstance(tool, ToolEnvTool)}
        output = await super().run(
            sampling_params, **{**kwargs, "tools_kwargs": {**kwargs.get("tools_kwargs", {}), **ours}}
        )
        output.extra_fields.update({"toolenv_episode": self.episode_id, "toolenv_url": self.server_url})
        return output

    async def _handle_generating_state(
        self, agent_data: AgentData, sampling_params: dict[str, Any], ignore_termination: bool = False
    ) -> AgentState:
        state = await super()._handle_generating_state(agent_data, sampling_params, ignore_termination)
        last = agent_data.messages[-1]
        # A message without calls ends the rollout and is the answer; a rollout cut short has none.
        if state == AgentState.TERMINATED and last["role"] == "assistant" and not last.get("tool_calls"):
            async with AsyncToolEnvClient(self.server_url) as client:
                try:
                    # Its own tokens, the end token left out (the tool parser's content keeps it).
                    text = self.tokenizer.decode(agent_data.response_ids, skip_special_tokens=True)
                    await client.turn(self.episode_id, message={"role": "assistant", "content": text})
                except ProblemError as error:
                    # 409: the episode took its last turn with the calls before; the answer came too late to count.
                    if error.status != 409:
                        raise
        return state


def _chat_function(url: str, name: str) -> Json:
    return next(f for f in _chat_functions(url) if f["function"]["name"] == name)


def _chat_functions(url: str, episode: Json | None = None) -> list[Json]:
    """The functions every `chat` episode offers, as the server specifies them for these episode options."""
    with ToolEnvClient(url) as client:
        created = client.create_episode(**{**(episode or {}), **ENGINE_CHAT})
        client.delete_episode(created["id"])
    return [f for f in created["functions"] if f["function"]["name"] in CHAT_FUNCTIONS]


def tool_config(path: str | os.PathLike[str], server_url: str, episode: Json | None = None) -> Path:
    """The file verl's `actor_rollout_ref.rollout.multi_turn.tool_config_path` names: `search_tool` and `call_tool`
    as `ToolEnvTool`s with the server's own schemas (`episode` options such as `k` shape their text)."""
    target_class = f"{ToolEnvTool.__module__}.{ToolEnvTool.__qualname__}"
    tools = [
        {"class_name": target_class, "config": {"type": "native", "server_url": server_url}, "tool_schema": spec}
        for spec in _chat_functions(server_url, episode)
    ]
    target = Path(path)
    # JSON is YAML: OmegaConf reads it as is.
    target.write_text(json.dumps({"tools": tools}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """verl's `custom_reward_function`: the server's rewards of the rollout's episode, which it then deletes.

    A flagged rollout (R_ans unscorable: no judge, no expected answer) scores 0 on the components it lacks and says
    so in `flagged` (1.0); verl's GDPO cannot leave a row out of a group.
    """
    info = extra_info or {}
    episode_id = info.get("toolenv_episode")
    if not episode_id:
        raise ValueError("extra_info has no toolenv_episode: run the toolenv_paraact agent loop with the naive manager")
    with ToolEnvClient(resolve_url(info.get("toolenv_url"))) as client:
        rewards = client.rewards(episode_id)
        run_dir = os.environ.get("TOOLENV_RUN")
        if run_dir:
            trajectory = client.trajectory(episode_id)
            step = int(info.get("global_steps") or 0)
            summary = {"id": episode_id, "task": trajectory.get("task"), "seed": trajectory.get("seed")}
            tokens = int(info.get("toolenv_tokens") or 0)
            RecordWriter(run_dir).write(episode_record(step, summary, rewards, trajectory, tokens), trajectory)
        client.delete_episode(episode_id)
    components = {key: float(rewards[key]) if rewards.get(key) is not None else 0.0 for key in REWARD_KEYS}
    score = sum(w * components[k] for k, w in zip(REWARD_KEYS, REWARD_WEIGHTS, strict=True))
    return {
        "score": score,
        **components,
        "r_ans": float(rewards["r_ans"]) if rewards.get("r_ans") is not None else 0.0,
        "success": 1.0 if rewards.get("success") else 0.0,
        "flagged": 1.0 if rewards.get("flagged") else 0.0,
    }


def gdpo_overrides(
    *,
    train_files: str,
    model: str,
    agent_loop_config: str,
    reward_file: str | None = None,
    group: int = 8,
    prompts_per_step: int = 256,
    steps: int | None = None,
    epochs: int = 2,
    learning_rate: float = 1e-6,
    max_prompt_length: int = 4096,
    max_response_length: int = 8192,
    gpus: int = 8,
    nodes: int = 1,
    out: str | None = None,
    lora_rank: int = 0,
) -> list[str]:
    """The Hydra overrides of `python -m verl.trainer.main_ppo` for the paper's RL stage (D.3) on ToolEnv."""
    reward_file = reward_file or str(Path(__file__).resolve())
    overrides = [
        f"data.train_files={train_files}",
        f"data.val_files={train_files}",
        f"data.train_batch_size={prompts_per_step}",
        f"data.max_prompt_length={max_prompt_length}",
        f"data.max_response_length={max_response_length}",
        "data.return_raw_chat=True",
        "data.filter_overlong_prompts=True",
        f"actor_rollout_ref.model.path={model}",
        f"actor_rollout_ref.actor.optim.lr={learning_rate}",
        f"actor_rollout_ref.actor.ppo_mini_batch_size={prompts_per_step}",
        "actor_rollout_ref.actor.clip_ratio=0.2",
        "actor_rollout_ref.actor.use_kl_loss=True",
        "actor_rollout_ref.actor.kl_loss_coef=0.001",
        "actor_rollout_ref.actor.kl_loss_type=low_var_kl",
        # Rollouts vary in length by the turn: batches packed by tokens, not by a fixed micro-batch count.
        "actor_rollout_ref.actor.use_dynamic_bsz=True",
        f"actor_rollout_ref.actor.ppo_max_token_len_per_gpu={max(16384, max_prompt_length + max_response_length)}",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
        "actor_rollout_ref.rollout.name=vllm",
        "actor_rollout_ref.rollout.mode=async",
        f"actor_rollout_ref.rollout.n={group}",
        "actor_rollout_ref.rollout.temperature=1.0",
        f"actor_rollout_ref.rollout.prompt_length={max_prompt_length}",
        f"actor_rollout_ref.rollout.response_length={max_response_length}",
        f"actor_rollout_ref.rollout.agent.agent_loop_config_path={agent_loop_config}",
        f"actor_rollout_ref.rollout.agent.default_agent_loop={AGENT_NAME}",
        "algorithm.adv_estimator=gdpo",
        "algorithm.use_kl_in_reward=False",
        # verl's yaml leaves the GDPO keys out of `algorithm` (its AlgoConfig has them): Hydra adds them with +.
        f"+algorithm.gdpo_reward_keys=[{','.join(REWARD_KEYS)}]",
        f"+algorithm.gdpo_reward_weights=[{','.join(map(str, REWARD_WEIGHTS))}]",
        "reward.reward_manager.name=naive",
        f"reward.custom_reward_function.path={reward_file}",
        "reward.custom_reward_function.name=compute_score",
        f"trainer.n_gpus_per_node={gpus}",
        f"trainer.nnodes={nodes}",
        f"trainer.total_epochs={epochs}",
        "trainer.logger=[console,file]",
        "trainer.project_name=toolenv",
        "trainer.val_before_train=False",
        "trainer.test_freq=-1",
    ]
    if steps is not None:
        overrides.append(f"trainer.total_training_steps={steps}")
    if out is not None:
        overrides.append(f"trainer.default_local_dir={out}")
    if lora_rank > 0:
        # Adapters on every linear layer, alpha twice the rank: the same adapters `toolenv.trl` trains.
        overrides += [
            f"actor_rollout_ref.model.lora_rank={lora_rank}",
            f"actor_rollout_ref.model.lora_alpha={2 * lora_rank}",
            "actor_rollout_ref.model.target_modules=all-linear",
        ]
    return overrides


def agent_loop_config(path: str | os.PathLike[str], server_url: str, *, max_turn_tokens: int = 1024) -> Path:
    """The file verl's `agent_loop_config_path` names: registers `toolenv_paraact` and `toolenv_chat` with the server
    they talk to."""
    entries = [
        {
            "name": AGENT_NAME,
            "_target_": f"{ToolEnvAgentLoop.__module__}.{ToolEnvAgentLoop.__qualname__}",
            "server_url": server_url,
            "max_turn_tokens": max_turn_tokens,
        },
        {
            "name": CHAT_AGENT_NAME,
            "_target_": f"{ToolEnvChatAgentLoop.__module__}.{ToolEnvChatAgentLoop.__qualname__}",
            "server_url": server_url,
        },
    ]
    target = Path(path)
    target.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    return target


def dataset_rows(client: ToolEnvClient, tasks: Sequence[Json], episode: Json | None = None) -> list[Json]:
    """One verl row per task: the messages a new episode of it starts with, the task and seed for the agent loop
    (`toolenv_chat` for `{"protocol": "chat"}` episodes, `toolenv_paraact` otherwise)."""
    agent = CHAT_AGENT_NAME if (episode or {}).get("protocol") == "chat" else AGENT_NAME
    rows = []
    for index, task in enumerate(tasks):
        created = client.create_episode(**episode_body(task), **(episode or {}))
        client.delete_episode(created["id"])
        answer = task.get("answer")
        rows.append(
            {
                "data_source": DATA_SOURCE,
                "agent_name": agent,
                "prompt": created["messages"],
                "ability": "tool_use",
                "reward_model": {"style": "toolenv", "ground_truth": json.dumps(answer) if answer else ""},
                "extra_info": {
                    "index": index,
                    "task": json.dumps(task),
                    "seed": created["seed"],
                    "episode": json.dumps(episode or {}),
                },
            }
        )
    return rows


def write_dataset(path: str | os.PathLike[str], rows: list[Json]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = Path(path)
    pq.write_table(pa.Table.from_pylist(rows), target)
    return target


def command(config: RunConfig) -> list[str]:
    """The verl command of a run: main_ppo with the GDPO overrides, then the run's own `--set` overrides."""
    run = config.run_dir
    overrides = gdpo_overrides(
        train_files=str(run / "train.parquet"),
        model=config.model,
        agent_loop_config=str(run / "agent_loop.yaml"),
        group=config.group,
        prompts_per_step=config.prompts_per_step,
        steps=config.steps,
        max_prompt_length=int(config.trainer.get("max_prompt_length", 4096)),
        max_response_length=config.max_completion_length,
        gpus=int(config.trainer.get("gpus", 8)),
        nodes=int(config.trainer.get("nodes", 1)),
        out=str(run / "checkpoints"),
        lora_rank=config.lora_rank,
    )
    return [sys.executable, "-m", "verl.trainer.main_ppo", *overrides, *config.trainer.get("overrides", [])]


def prepare(config: RunConfig) -> None:
    """Writes what verl reads: the parquet dataset (prompts from the server) and the agent loop file."""
    run = config.run_dir
    with ToolEnvClient(config.server) as client:
        write_dataset(run / "train.parquet", dataset_rows(client, config.read_tasks(), config.episode))
    agent_loop_config(run / "agent_loop.yaml", config.server, max_turn_tokens=config.max_turn_tokens)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.verl")
    parser.add_argument("train_json", nargs="?", help="RUN/train.json as `toolenv train --engine verl` writes it")
    parser.add_argument("--print", action="store_true", help="print the verl command instead of running it")
    parser.add_argument("--tool-config", metavar="PATH", help="write the chat tools' config for verl there and exit")
    parser.add_argument("--agent-loop-config", metavar="PATH", help="write the agent loops' config there and exit")
    parser.add_argument("--server", help="the ToolEnv server of those files (default: TOOLENV_URL)")
    parser.add_argument("--k", type=int, help="the episodes' search size, as search_tool's schema states it")
    args = parser.parse_args(argv)
    if args.tool_config or args.agent_loop_config:
        url = resolve_url(args.server)
        if args.tool_config:
            tool_config(args.tool_config, url, {"k": args.k} if args.k else None)
        if args.agent_loop_config:
            agent_loop_config(args.agent_loop_config, url)
        return 0
    if args.train_json is None:
        parser.error("give RUN/train.json, or --tool-config / --agent-loop-config")
    config = RunConfig.load(args.train_json)
    line = command(config)
    if args.print:
        print(shlex.join(line))
        return 0
    prepare(config)
    # verl's workers read these: where to record episodes, and verl's own file logger.
    os.environ["TOOLENV_RUN"] = str(config.run_dir)
    os.environ.setdefault("VERL_FILE_LOGGER_PATH", str(config.run_dir / "verl.jsonl"))
    os.environ["TOOLENV_URL"] = config.server
    os.execv(line[0], line)


if __name__ == "__main__":
    sys.exit(main())
