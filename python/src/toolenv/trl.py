"""TRL integration: a `rollout_func` for `GRPOTrainer` that runs ParaAct episodes through ToolEnv's text turns, the
three reward functions that read the server's rewards, and SFT on ParaAct conversations.

GRPO: each prompt's `num_generations` completions are one ToolEnv group (one task, one seed, one world). A
completion is the whole multi-turn rollout: the model's messages (loss on them) and the observations ToolEnv sent back
(`env_mask` 0, no loss). The rewards are the server's R_step, R_phase and R_traj, normalized separately in the group
(`multi_objective_aggregation="normalize_then_sum"`) and weighted 1.0 / 0.5 / 0.25 (λτ, λp, λs of Eq. 7).

`chat` episodes (native tool calling) run on TRL's own tool-calling loop instead: `ToolEnvEnvironment` is an
`environment_factory` whose tools are ToolEnv's `search_tool` and `call_tool`, `chat_r_phase` its reward function
beside the environment's `get_reward` (R_traj), `chat_dataset` its rows.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolenv import attention, copy_circuit
from toolenv.client import ENGINE_CHAT, Json, ToolEnvClient, resolve_url
from toolenv.records import RecordWriter, episode_record
from toolenv.run import TASK_MEMBERS, RunConfig, episode_body
from toolenv.tokens import EnvTurns, chat_ids, message_tokens

# The weights of REWARD_FUNCS (r_traj, r_phase, r_step): λτ, λp, λs (paper, C.4).
REWARD_WEIGHTS = [1.0, 0.5, 0.25]


def prompt_key(prompt: Sequence[Json]) -> str:
    return json.dumps([{"role": m["role"], "content": m["content"]} for m in prompt], sort_keys=True)


@dataclass
class EpisodeOptions:
    """What every episode of the run is created with (the server's defaults are the paper's)."""

    protocol: str = "paraact"
    k: int | None = None
    max_calls_per_turn: int | None = None
    max_turns: int | None = None
    error_rate: float | None = None
    max_observation_chars: int | None = None
    system_prompt: str | None = None

    def body(self) -> Json:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def rl_dataset(client: ToolEnvClient, tasks: Sequence[Json], options: EpisodeOptions | None = None):
    """A `datasets.Dataset` with one row per task: `prompt` = the messages the server answers for a new episode."""
    from datasets import Dataset

    options = options or EpisodeOptions()
    rows = []
    for number, task in enumerate(tasks, 1):
        if task.get("id") is None:
            raise ValueError(f"task {number} has no id: the rollout finds each prompt's task by it")
        episode = client.create_episode(**episode_body(task), **options.body())
        client.delete_episode(episode["id"])
        rows.append({"prompt": episode["messages"], "task_id": str(task["id"])})
    return Dataset.from_list(rows)


_CANNOT_SPEAK = (
    "the model cannot speak the protocol yet, so every group's rewards tie and GRPO has nothing to learn; "
    "train it with --stage sft first"
)


class MalformedRollouts(RuntimeError):
    """A first step whose rollouts hold not one accepted turn: RL from a base that cannot write the protocol."""


class TrainingShortfall(RuntimeError):
    """The engine ran fewer optimizer steps than asked for."""


@dataclass
class _Rollout:
    episode: Json
    prompt_ids: list[int]
    completion: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    done: bool = False
    model_tokens: int = 0
    accepted: int = 0
    turns: int = 0


@contextmanager
def _sampling(model: Any) -> Iterator[None]:
    """The model as the policy acts, for a whole rollout call: no dropout, the KV cache that training's gradient
    checkpointing turns off, and LoRA adapters folded into the weights (unmerged, each linear layer runs two more
    products a token), unfolded before the update."""
    training = model.training
    model.eval()
    merged = hasattr(model, "merge_adapter")
    if merged:
        model.merge_adapter()
    try:
        yield
    finally:
        if merged:
            model.unmerge_adapter()
        model.train(training)


class ToolEnvRollout:
    """`rollout_func` for `GRPOTrainer(rollout_func=...)`: GRPO groups as ToolEnv groups, turns through `/turns`.

    Generation runs on the trainer's own model (`transformers` generate, batched across the rollouts of a call): the
    single-machine path. Rollouts at scale belong to verl with vLLM (`toolenv.verl`).
    """

    def __init__(
        self,
        client: ToolEnvClient,
        tasks: Sequence[Json],
        *,
        options: EpisodeOptions | None = None,
        max_turn_tokens: int = 512,
        records: RecordWriter | None = None,
        concurrency: int = 16,
        generation_batch: int = 16,
    ) -> None:
        self.client = client
        self.options = options or EpisodeOptions()
        self.max_turn_tokens = max_turn_tokens
        self.records = records
        self.concurrency = concurrency
        # Rollouts generated together: a masked prefill holds about batch x context² scores (16 x 4,096 tokens: 1.6 GB
        # on a CPU), so a step's rollouts go through the model in chunks of this many, not all at once.
        self.generation_batch = generation_batch
        self._by_id = {str(task.get("id")): task for task in tasks}
        self._tasks: dict[str, Json] = {}

    def register(self, dataset: Any) -> None:
        """Maps the dataset's prompts back to their tasks (TRL hands `rollout_func` the prompts only)."""
        for row in dataset:
            key = prompt_key(row["prompt"])
            task = self._by_id.get(row["task_id"])
            if task is None:
                raise KeyError(f"dataset row {row['task_id']!r} names no task of this rollout")
            if key in self._tasks and self._tasks[key] is not task:
                raise ValueError(f"tasks {self._tasks[key].get('id')!r} and {row['task_id']!r} give the same prompt")
            self._tasks[key] = task

    def __call__(self, prompts: list[list[Json]], trainer: Any) -> dict[str, list]:
        mode = "train" if trainer.model.training else "eval"
        n = trainer.num_generations if mode == "train" else trainer.num_generations_eval
        if len(prompts) % n:
            raise ValueError(f"{len(prompts)} prompts do not split into groups of num_generations={n}")
        tokenizer = trainer.processing_class
        budget = trainer.args.max_completion_length
        rollouts: list[_Rollout] = []
        groups: list[str] = []
        try:
            for start in range(0, len(prompts), n):
                task = self._task_of(prompts[start])
                group = self.client.create_group(n=n, **episode_body(task), **self.options.body())
                groups.append(group["id"])
                for episode in group["episodes"]:
                    ids = tokenizer.apply_chat_template(episode["messages"], tokenize=True, add_generation_prompt=True)
                    rollouts.append(_Rollout(episode=episode, prompt_ids=chat_ids(ids)))
            # Judged on the first step, from the base as given: later steps may sample a bad batch and go on.
            first = mode == "train" and trainer.state.global_step == 0
            scored = self._play(trainer, rollouts, budget, judge_first_turns=first)
            if first and not any(r.accepted for r in rollouts):
                raise MalformedRollouts(
                    f"none of step 1's {len(rollouts)} rollouts wrote a turn the protocol accepts "
                    f"({sum(r.turns for r in rollouts)} turns): {_CANNOT_SPEAK}"
                )
        finally:
            # The rewards are read: the episodes go, also when a rollout failed half way.
            for group in groups:
                self.client.delete_group(group)
        return {
            "prompt_ids": [r.prompt_ids for r in rollouts],
            "completion_ids": [r.completion[:budget] for r in rollouts],
            "logprobs": None,
            "env_mask": [r.mask[:budget] for r in rollouts],
            "toolenv_episode": [r.episode["id"] for r in rollouts],
            **{key: [s.get(key) for s in scored] for key in ("r_step", "r_phase", "r_traj", "r_ans", "success")},
        }

    def _play(self, trainer: Any, rollouts: list[_Rollout], budget: int, judge_first_turns: bool = False) -> list[Json]:
        """Turn by turn, every rollout still going generates at once; their texts go to `/turns` concurrently. With
        `judge_first_turns`, a round of first turns none of which the protocol accepts ends the run there: a policy
        that cannot open an episode would otherwise write every rollout to its token budget (a random tiny model:
        over 15 minutes a step here) before the step's own check says the same."""
        tokenizer = trainer.processing_class
        stop = list(rollouts[0].episode.get("stop", [])) if rollouts else []
        env_turns = EnvTurns(tokenizer)
        model = trainer.accelerator.unwrap_model(trainer.model)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            with _sampling(model):
                while True:
                    active = [r for r in rollouts if not r.done and len(r.completion) < budget]
                    if not active:
                        break
                    size = self.generation_batch
                    chunks = [active[i : i + size] for i in range(0, len(active), size)]
                    messages = [m for chunk in chunks for m in self._generate(trainer, model, chunk, stop, budget)]
                    observations = list(pool.map(lambda pair: self._turn(*pair), zip(active, messages, strict=True)))
                    if judge_first_turns and not any(r.accepted for r in rollouts):
                        raise MalformedRollouts(
                            f"none of step 1's {len(rollouts)} first turns is one the protocol accepts: {_CANNOT_SPEAK}"
                        )
                    judge_first_turns = False
                    for rollout, observation in zip(active, observations, strict=True):
                        if observation is not None:
                            ended = bool(rollout.completion) and rollout.completion[-1] == tokenizer.eos_token_id
                            added = env_turns.after_assistant(observation, ended_by_eos=ended)
                            rollout.completion += added
                            rollout.mask += [0] * len(added)
            return list(pool.map(lambda r: self._finish(r, trainer.state.global_step + 1), rollouts))

    def _task_of(self, prompt: list[Json]) -> Json:
        task = self._tasks.get(prompt_key(prompt))
        if task is None:
            raise KeyError("a prompt the rollout does not know: build the dataset with rl_dataset() and register() it")
        return task

    def _generate(self, trainer: Any, model: Any, active: list[_Rollout], stop: list[str], budget: int) -> list[str]:
        """One assistant message per active rollout; its sampled tokens join the completion with mask 1."""
        import torch

        tokenizer = trainer.processing_class
        inputs = [r.prompt_ids + r.completion for r in active]
        width = max(len(x) for x in inputs)
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(x)) + x for x in inputs], device=model.device)
        attention = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in inputs], device=model.device)
        room = min(self.max_turn_tokens, max(budget - len(r.completion) for r in active))
        args = trainer.args
        with torch.no_grad():
            out = model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=room,
                do_sample=True,
                temperature=args.temperature,
                top_p=args.top_p,
                top_k=args.top_k if args.top_k else None,
                stop_strings=stop or None,
                tokenizer=tokenizer,
                pad_token_id=pad,
                eos_token_id=tokenizer.eos_token_id,
                use_cache=True,
            )
        texts = []
        for rollout, row in zip(active, out[:, width:].tolist(), strict=True):
            kept, text = message_tokens(tokenizer, row, stop, budget - len(rollout.completion))
            rollout.completion += kept
            rollout.mask += [1] * len(kept)
            rollout.model_tokens += len(kept)
            texts.append(text)
        return texts

    def _turn(self, rollout: _Rollout, text: str) -> str | None:
        answer = self.client.turn(rollout.episode["id"], text)
        if not answer.get("rejected"):
            rollout.accepted += 1
        if answer["done"]:
            rollout.done = True
            return None
        return answer["observation"]["content"]

    def _finish(self, rollout: _Rollout, step: int) -> Json:
        rewards = self.client.rewards(rollout.episode["id"])
        trajectory = self.client.trajectory(rollout.episode["id"])
        turns = trajectory.get("turns", [])
        rollout.turns = len(turns)
        rollout.accepted = sum(1 for t in turns if not t.get("rejected"))
        if self.records:
            record = episode_record(step, rollout.episode, rewards, trajectory, rollout.model_tokens)
            self.records.write(record, trajectory)
        return rewards


def _rewards_of(name: str):
    def reward(prompts: list, completions: list, **kwargs: Any) -> list[float | None]:
        return [None if value is None else float(value) for value in kwargs[name]]

    reward.__name__ = name
    return reward


# The server's reward components, forwarded by ToolEnvRollout; None (a flagged rollout) is left out by TRL.
r_step = _rewards_of("r_step")
r_phase = _rewards_of("r_phase")
r_traj = _rewards_of("r_traj")
REWARD_FUNCS = [r_traj, r_phase, r_step]


class ToolEnvEnvironment:
    """`environment_factory` for TRL's `GRPOTrainer`: each rollout plays one ToolEnv `chat` episode (native tool
    calling), its tools are `search_tool` and `call_tool`, and `get_reward` answers the episode's R_traj.

    TRL builds instances without arguments, pools them and calls `reset(**row)` before every rollout. The server is
    TOOLENV_URL; `functools.partial(ToolEnvEnvironment, url, max_turns=8)` gives it and the episodes' options (any
    `POST /v1/episodes` field) instead. A row carries its task as `task` (a dict, or JSON text as datasets keep it),
    or the task's fields (`id`, `query`, `reference_tools`, `answer`) at top level; a `seed` beside wins over the
    task's. `chat_dataset` writes such rows with the prompt the server gives the episode.

    TRL runs each tool call of a message on its own, so every call is a one-call turn of the episode. TRL never tells
    the environment the final message: `chat_r_phase`, a reward function, hands it to the episode (a message without
    tool calls is the answer) before `get_reward` reads R_traj; without it the rewards are those of the episode as it
    stands, unanswered. Found tools are called through `call_tool` (TRL offers only the methods of this class), so the
    episodes are `native_tools: false` and their prompt says so.
    """

    def __init__(self, url: str | None = None, *, api_key: str | None = None, **episode: Any) -> None:
        self._client = ToolEnvClient(resolve_url(url), api_key=api_key)
        self._options = {**episode, **ENGINE_CHAT}
        self._episode: str | None = None
        self._done = False
        self._calls = 0

    def reset(self, **row: Any) -> None:
        """Opens the row's episode (the one before is deleted: a pooled instance plays many). The prompt is the
        row's own, so nothing is added to it."""
        self._drop()
        self._episode = self._client.create_episode(**_row_episode(row), **self._options)["id"]
        self._done = False
        self._calls = 0

    def search_tool(self, query: str, k: int | None = None) -> str:
        """Search a library of thousands of real APIs for tools that do something. Answers the top tools (id, name,
        description, parameters, response fields); call one with call_tool and its id.

        Args:
            query: What the tool should do, in words.
            k: How many tools to return (the episode's default when left out).

        Returns:
            The tools found, as JSON.
        """
        return self._call("search_tool", {"query": query} if k is None else {"query": query, "k": k})

    def call_tool(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call a library tool by its id, as search_tool returned it, with the arguments its parameters ask for.

        Args:
            tool: The tool id.
            arguments: The tool's arguments.

        Returns:
            The call's result as JSON: id, tool, status, body.
        """
        return self._call("call_tool", {"tool": tool, "arguments": arguments})

    def get_reward(self) -> float | None:
        """The episode's R_traj (None, which TRL leaves out, when the server flags it unscorable)."""
        return _number(self._rewards()["r_traj"])

    def _rewards(self) -> Json:
        return self._client.rewards(self._current())

    def _current(self) -> str:
        if self._episode is None:
            raise RuntimeError("no episode: TRL calls reset(**row) before a rollout")
        return self._episode

    def _call(self, name: str, arguments: Json) -> str:
        self._calls += 1
        call = {"id": f"call_{self._calls}", "type": "function", "function": {"name": name, "arguments": arguments}}
        answer = self._client.turn(self._current(), message={"role": "assistant", "content": "", "tool_calls": [call]})
        self._done = answer["done"]
        return answer["messages"][0]["content"]

    def _finish(self, completion: list[Json]) -> None:
        """Sends the rollout's last message as the answer when it is one: an assistant message without tool calls
        (a rollout cut at the length or tool-call limit has none) to an episode still going."""
        last = completion[-1] if completion else {}
        if self._done or last.get("role") != "assistant" or last.get("tool_calls"):
            return
        self._done = self._client.turn(
            self._current(), message={"role": "assistant", "content": last.get("content") or ""}
        )["done"]

    def _drop(self) -> None:
        if self._episode is not None:
            self._client.delete_episode(self._episode)
            self._episode = None


def _row_episode(row: Json) -> Json:
    task = row.get("task")
    if isinstance(task, str):
        task = json.loads(task)
    if task is None:
        task = {k: row[k] for k in TASK_MEMBERS if row.get(k) is not None}
    body = episode_body(task)
    if row.get("seed") is not None:
        body["seed"] = int(row["seed"])
    return body


def chat_r_phase(completions: list[list[Json]], environments: list[Any], **kwargs: Any) -> list[float | None]:
    """TRL reward function for `ToolEnvEnvironment` rollouts: hands each rollout's final message to its episode as
    the answer, then reads R_phase. TRL runs it before the environment's own `get_reward` (R_traj, weight 1), which
    then scores the answered episode; weight it 0.5 (λp) with `multi_objective_aggregation="normalize_then_sum"`."""
    rewards: list[float | None] = []
    for completion, environment in zip(completions, environments, strict=True):
        environment._finish(completion)
        rewards.append(_number(environment._rewards()["r_phase"]))
    return rewards


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def chat_dataset(client: ToolEnvClient, tasks: Sequence[Json], **episode: Any):
    """A `datasets.Dataset` for `ToolEnvEnvironment`: one row per task, `prompt` the messages the server opens its
    `chat` episode with (give the environment the same `episode` options), `task` the task as JSON text."""
    from datasets import Dataset

    rows = []
    for task in tasks:
        created = client.create_episode(**episode_body(task), **{**episode, **ENGINE_CHAT})
        client.delete_episode(created["id"])
        rows.append({"prompt": created["messages"], "task": json.dumps(task)})
    return Dataset.from_list(rows)


def cpu_has_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX). Elsewhere oneDNN emulates it, slower than
    float32, so training stays in full precision there."""
    try:
        with open(cpuinfo, encoding="utf-8") as info:
            flags = next((line.split(":", 1)[1].split() for line in info if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _config(cls: Any, output_dir: str, paper: Json, overrides: Json):
    """A TRL config: the paper's settings, this machine's precision, no logging service or intermediate saves, then
    the caller's overrides.

    bf16 autocast wherever the hardware has it: a GPU that supports it, or a CPU with native bf16 instructions, where
    SmolLM2-135M's LoRA SFT step of 1,900 tokens took 12-14 s against 17-19 s in float32 (weights and optimizer
    state stay float32 either way)."""
    import torch

    on_gpu = torch.cuda.is_available()
    bf16 = torch.cuda.is_bf16_supported() if on_gpu else cpu_has_bf16()
    precision = {"bf16": bf16, "use_cpu": not on_gpu}
    return cls(
        **{"output_dir": output_dir, "report_to": "none", "save_strategy": "no", **precision, **paper, **overrides}
    )


def grpo_config(output_dir: str, **overrides: Any):
    """`GRPOConfig` with the paper's RL hyperparameters (D.3): N = 8, temperature 1.0, clip 0.2, KL 0.001, lr 1e-6,
    the three rewards normalized separately then weighted (Eq. 7)."""
    from trl import GRPOConfig

    paper: Json = {
        "model_init_kwargs": {"attn_implementation": attention.implementation()},
        "num_generations": 8,
        "temperature": 1.0,
        "epsilon": 0.2,
        "beta": 0.001,
        "learning_rate": 1e-6,
        "multi_objective_aggregation": "normalize_then_sum",
        "reward_weights": REWARD_WEIGHTS,
        "mask_truncated_completions": False,
        "max_completion_length": 8192,
    }
    return _config(GRPOConfig, output_dir, paper, overrides)


def sft_dataset(path: str):
    """ParaAct conversations (`sft.jsonl`: one `{"messages": [...]}` per line) as a `datasets.Dataset`."""
    from datasets import Dataset

    rows = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            messages = row.get("messages")
            if not isinstance(messages, list) or not any(m.get("role") == "assistant" for m in messages):
                raise ValueError(f"{path}:{number}: a record needs a messages list with assistant turns")
            rows.append({"messages": [{"role": m["role"], "content": m["content"]} for m in messages]})
    return Dataset.from_list(rows)


def sft_config(output_dir: str, **overrides: Any):
    """`SFTConfig` for cold start (D.3: lr 1e-5, 3 epochs), the loss on assistant tokens only."""
    import torch
    from trl import SFTConfig

    paper: Json = {
        "assistant_only_loss": True,
        # TRL truncates at 1,024 tokens by default: a ParaAct conversation's system prompt alone is most of that.
        "max_length": None,
        "learning_rate": 1e-5,
        "num_train_epochs": 3,
        "model_init_kwargs": {"attn_implementation": attention.implementation()},
        # TRL recomputes activations by default. SFT here runs one conversation per forward pass, so on a CPU memory is
        # bounded and time is short: off, SmolLM2-135M with LoRA took 57-70 s a step at 1,900 tokens against 80-83 s.
        # GRPO keeps it: its batch is every rollout of a step, and without it 4 rollouts of 2,048 tokens outgrew 24 GB.
        "gradient_checkpointing": torch.cuda.is_available(),
    }
    return _config(SFTConfig, output_dir, paper, overrides)


def lora_config(rank: int, *, model: str | None = None, layers: int = 0):
    """Low-rank adapters on every linear layer, alpha twice the rank, no dropout (a policy samples as it trains).

    `layers` > 0 adapts the linear layers of the last `layers` decoder blocks only: the backward pass then stops
    there instead of running through the whole frozen model. SmolLM2-135M's forward and backward of 1,100 tokens
    took 3.1 s with adapters on its last 8 of 30 blocks against 8.5 s on all of them (on this project's CPU)."""
    from peft import LoraConfig

    common: Json = {"r": rank, "lora_alpha": 2 * rank, "lora_dropout": 0.0, "task_type": "CAUSAL_LM"}
    if layers <= 0:
        return LoraConfig(target_modules="all-linear", **common)
    if model is None:
        raise ValueError("adapting the last layers needs the model, to count its blocks")
    names, blocks = _block_linears(model)
    if layers > blocks:
        raise ValueError(f"--lora-layers {layers}: {model} has {blocks} decoder blocks")
    return LoraConfig(target_modules=names, layers_to_transform=list(range(blocks - layers, blocks)), **common)


def _block_linears(model: str) -> tuple[list[str], int]:
    """The names of the linear layers inside a decoder block, and how many blocks the model has, read from its
    config on the meta device (no weights loaded)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(model)
    with torch.device("meta"):
        skeleton = AutoModelForCausalLM.from_config(config)
    names = sorted(
        {
            name.rsplit(".", 1)[-1]
            for name, module in skeleton.named_modules()
            if isinstance(module, torch.nn.Linear) and ".layers." in name
        }
    )
    return names, int(config.num_hidden_layers)


def _checkpointing(config: RunConfig) -> Json:
    """GRPO recomputes activations (TRL's default) unless adapters sit on the last blocks only: autograd then keeps
    the activations of those blocks alone, and recomputing them would cost more than it saves (6.3 s against 3.1 s
    for SmolLM2's 1,100 tokens with 8 of 30 blocks adapted)."""
    import torch

    return {"gradient_checkpointing": False} if config.lora_layers > 0 and not torch.cuda.is_available() else {}


def _log_callback(path: str):
    from transformers import TrainerCallback

    class TrainerLog(TrainerCallback):
        """Appends the trainer's logs (loss, learning rate, TRL's reward statistics) as JSON lines."""

        def on_log(self, args: Any, state: Any, control: Any, logs: Json | None = None, **kwargs: Any) -> None:
            if not state.is_world_process_zero or not logs:
                return
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"step": state.global_step, "time": time.time(), **logs}) + "\n")

    return TrainerLog()


def train(config: RunConfig) -> Path:
    """Runs `train.json`'s stage on TRL and saves the final model under RUN/checkpoint."""
    from transformers import AutoTokenizer
    from trl import GRPOTrainer, SFTTrainer

    run_dir = config.run_dir
    tokenizer = AutoTokenizer.from_pretrained(config.model)
    log = _log_callback(str(run_dir / "trainer.jsonl"))
    # No step count (sft's default) trains for the configured epochs.
    steps = config.steps if config.steps > 0 else -1
    adapters = (
        {"peft_config": lora_config(config.lora_rank, model=config.model, layers=config.lora_layers)}
        if config.lora_rank > 0
        else {}
    )
    common = {"max_steps": steps, "seed": config.seed, "logging_steps": 1, **config.trainer}
    if config.stage == "sft":
        if config.sft_data is None:
            raise ValueError("the sft stage needs train.json's sft_data")
        from transformers import AutoConfig

        # The run's sequence budget, never past the positions the model has.
        limit = getattr(AutoConfig.from_pretrained(config.model), "max_position_embeddings", None) or config.max_seq_len
        sizes = {"max_length": min(config.max_seq_len, limit), **common}
        # One conversation per forward pass, the step's batch accumulated: with no padding there is no attention mask,
        # and SDPA takes its causal kernel. Padded or packed batches need an explicit mask, which on a CPU ran 5x slower
        # per token (docs/training.md, "Budgets").
        batch = {"per_device_train_batch_size": 1, "gradient_accumulation_steps": config.prompts_per_step}
        args = sft_config(str(run_dir / "checkpoints"), **batch, **sizes)
        dataset = sft_dataset(str(config.sft_data))
        if len(dataset) == 0:
            raise TrainingShortfall(f"{config.sft_data} holds no conversation: nothing to train on")
        trainer = SFTTrainer(
            model=config.model,
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            callbacks=[log],
            **adapters,
        )
    else:
        client = ToolEnvClient(config.server)
        tasks = config.read_tasks()
        options = EpisodeOptions(**config.episode)
        if len(tasks) < config.prompts_per_step:
            raise TrainingShortfall(
                f"{len(tasks)} tasks cannot fill one step of {config.prompts_per_step} prompts: pass a smaller --batch"
            )
        dataset = rl_dataset(client, tasks, options)
        rollout = ToolEnvRollout(
            client,
            tasks,
            options=options,
            max_turn_tokens=config.max_turn_tokens,
            records=RecordWriter(run_dir),
            generation_batch=config.generation_batch,
        )
        rollout.register(dataset)
        # One optimizer step over every prompt's group, taken one group at a time: memory holds one group's
        # sequences, however many prompts a step has; the rollouts of the whole step are still generated first.
        args = grpo_config(
            str(run_dir / "checkpoints"),
            num_generations=config.group,
            per_device_train_batch_size=config.group,
            gradient_accumulation_steps=config.prompts_per_step,
            max_completion_length=min(config.max_completion_length, config.max_seq_len),
            **{**_checkpointing(config), **common},
        )
        trainer = GRPOTrainer(
            model=config.model,
            reward_funcs=REWARD_FUNCS,
            args=args,
            train_dataset=dataset,
            processing_class=tokenizer,
            rollout_func=rollout,
            callbacks=[log],
            **adapters,
        )
    # A model written with a copy circuit (`model tiny-hf --copy-circuit`) keeps it: the rest learns to use it.
    copy_circuit.freeze(trainer.model)
    trainer.train()
    if config.steps > 0 and trainer.state.global_step < config.steps:
        raise TrainingShortfall(
            f"the trainer ran {trainer.state.global_step} of {config.steps} optimizer steps: its data ran out "
            "(fewer examples than one step's batch, or an empty dataset)"
        )
    checkpoint = run_dir / "checkpoint"
    if config.lora_rank > 0:
        # Merged: the checkpoint is a plain model that the next stage, `eval --policy hf:` and vLLM load as they are.
        trainer.accelerator.unwrap_model(trainer.model).merge_and_unload().save_pretrained(str(checkpoint))
    else:
        trainer.save_model(str(checkpoint))
    tokenizer.save_pretrained(str(checkpoint))
    return checkpoint


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m toolenv.trl RUN/train.json", file=sys.stderr)
        return 2
    try:
        checkpoint = train(RunConfig.load(args[0]))
    except (TrainingShortfall, MalformedRollouts, ValueError) as error:
        # One line the CLI shows as the run's failure (it looks for it at the end of engine.log).
        print(f"toolenv: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"checkpoint": str(checkpoint)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
