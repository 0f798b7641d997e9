"""One GPU, a few minutes: SmolLM2-135M learns ToolEnv's protocol (cold-start SFT), then improves on its own successful
rollouts (expert iteration), each stage evaluated greedily on held-out tasks whose APIs no training task uses.

Everything it reads comes out of the pack `scripts/gpu-pack` builds (docs/gpu.md); `scripts/gpu-run` unpacks it and
calls this module:

    python -m toolenv.gpu_run preflight   --stage STAGE             versions, imports, the GPU, the packed node
    python -m toolenv.gpu_run materialize --stage STAGE             the policy's weights out of the packed GGUF
    python -m toolenv.gpu_run run         --stage STAGE --out OUT   serve, train, evaluate, write the table and curve
    python -m toolenv.gpu_run play --server URL --model DIR --tasks FILE --out FILE   one batch of episodes

**Why expert iteration, not GRPO.** After SFT the policy is nearly deterministic: sampled at 0.7 it spent 0.012-0.049
nats a token (docs/training.md), so a GRPO group of 4 often repeats one rollout, its rewards tie, its advantage is zero
and the group teaches nothing; every step's gradient was small (norm 0.013-0.048). Expert iteration (rejection-sampling
fine-tuning) needs no spread inside a group: every rollout the server scores a success is a demonstration, also when
all of its group succeeded, and the update is the SFT the cold start already runs (`python -m toolenv.trl`, LoRA),
so one round is one batch of rollouts and one short SFT. What it gives up: failures teach nothing (no negative
signal), and it narrows what the policy samples; two or three rounds stay far from either limit.

**Episodes** are played here, not by `toolenv eval`: all of a stage's rollouts advance turn by turn in one batch (the
hf policy's worker batches what reaches it within 20 ms, 16 at most, which splits a wave of 96 episodes into several
generations on a GPU). Each episode is the one `toolenv eval --policy hf:DIR` plays: the same episode options
(`runAgent`'s), the same seeds (`toolenv eval`'s per task-run), the conversation re-rendered by the chat template
every turn, cut where `toolenv.generate` cuts it, scored as `eval` scores a run (success: the answer holds the task's
expected answer; path; well-formed turns) beside the server's rewards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Json = dict[str, Any]

# src/protocol/prompts.ts STOP_SEQUENCES and src/protocol/protocol.ts's defaults, as `runAgent` creates episodes.
STOP_SEQUENCES = ["<tool_response>", "<tools>", "<error>"]
DEFAULT_K = 3
DEFAULT_MAX_CALLS_PER_TURN = 3
Z95 = 1.959963984540054
HTTP_THREADS = 32


# ---------------------------------------------------------------------------------------------------------- scoring


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """The Wilson score interval of a binomial proportion (95% by default); (None, None) without trials."""
    if n <= 0:
        return None, None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def episode_seed(seed: int, task_id: str, run: int) -> int:
    """`toolenv eval`'s seed of one task-run (src/eval/seed.ts): 31 bits of sha256(seed, task, run)."""
    digest = hashlib.sha256(f"{seed}\u0000{task_id}\u0000{run}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def run_seed(task: Json, run: int, seed: int) -> int:
    """The task's own seed for its first run, derived ones after (as `toolenv eval` does); `seed` without one."""
    own = task.get("seed")
    if own is not None:
        return int(own) if run == 1 else episode_seed(int(own), str(task["id"]), run)
    return episode_seed(seed, str(task["id"]), run)


def answer_contains(answer: str | None, expected: str | Sequence[str]) -> bool:
    """`toolenv eval`'s rule: the answer holds the expected string, or every one of them, ignoring case."""
    if answer is None:
        return False
    parts = [expected] if isinstance(expected, str) else list(expected)
    return all(part.lower() in answer.lower() for part in parts)


@dataclass
class EpisodeSettings:
    """The budgets every episode of the run is played under: the ones the demonstrations were made with."""

    max_turns: int = 4
    max_turn_tokens: int = 320
    max_seq_len: int = 2048
    max_observation_chars: int = 1000
    system_prompt: str = "brief"
    protocol: str = "paraact"

    def episode(self, task: Json, seed: int) -> Json:
        """`POST /v1/episodes` as `runAgent` sends it (src/agent/run.ts), injected errors off."""
        body: Json = {
            "task": {k: task[k] for k in ("id", "query", "reference_tools", "answer") if task.get(k) is not None},
            "protocol": self.protocol,
            "k": DEFAULT_K,
            "max_calls_per_turn": DEFAULT_MAX_CALLS_PER_TURN,
            "max_turns": self.max_turns,
            "max_steps": self.max_turns,
            "seed": seed,
            "error_rate": 0,
            "max_observation_chars": self.max_observation_chars,
            "system_prompt": self.system_prompt,
        }
        if task.get("tools") is not None:
            body["tools"] = task["tools"]
        return body


def score(task: Json, run: Json) -> Json:
    """One played episode as `toolenv eval` scores it (src/eval/score.ts), the server's rewards beside."""
    answered = run["finish"] == "answer" and (run.get("answer") or "").strip() != ""
    expected = task.get("answer")
    success = answered and answer_contains(run.get("answer"), expected) if expected is not None else None
    references = list(task.get("reference_tools") or [])
    ok_tools = {c["tool"] for c in run.get("calls", []) if c.get("ok")}
    turns = (run.get("trajectory") or {}).get("turns", [])
    rewards = run.get("rewards") or {}
    return {
        "task_id": task["id"],
        "api": (task.get("meta") or {}).get("api"),
        "run": run["run"],
        "seed": run["seed"],
        "finish": run["finish"],
        "error": run.get("error"),
        "answer": run.get("answer"),
        "success": success,
        "server_success": rewards.get("success"),
        "path": len([t for t in references if t in ok_tools]) / len(references) if references else None,
        "turns": run["turns"],
        "well_formed_turns": sum(1 for t in turns if t.get("well_formed")),
        "calls": len(run.get("calls", [])),
        "r_step": rewards.get("r_step"),
        "r_phase": rewards.get("r_phase"),
        "r_traj": rewards.get("r_traj"),
        "r_ans": rewards.get("r_ans"),
        "completion_tokens": run.get("completion_tokens", 0),
        "messages": run["messages"],
    }


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def summarize(rows: Sequence[Json]) -> Json:
    """A stage on one task set: success with its 95% Wilson interval, the turn and reward means, and per API."""
    scored = [r for r in rows if r["success"] is not None]
    k = sum(1 for r in scored if r["success"])
    lo, hi = wilson(k, len(scored))
    turns = sum(r["turns"] for r in rows)
    by_api: dict[str, list[Json]] = {}
    for row in rows:
        by_api.setdefault(row.get("api") or "?", []).append(row)
    return {
        "n": len(scored),
        "successes": k,
        "success": k / len(scored) if scored else None,
        "ci95": [lo, hi],
        "server_success": _mean(None if r["server_success"] is None else float(r["server_success"]) for r in rows),
        "well_formed": sum(r["well_formed_turns"] for r in rows) / turns if turns else None,
        "path": _mean(r["path"] for r in rows),
        "turns": _mean(float(r["turns"]) for r in rows),
        "r_step": _mean(r["r_step"] for r in rows),
        "r_phase": _mean(r["r_phase"] for r in rows),
        "r_traj": _mean(r["r_traj"] for r in rows),
        "errors": sum(1 for r in rows if r["finish"] == "error"),
        "apis": len(by_api),
        "apis_solved": sum(1 for api_rows in by_api.values() if any(r["success"] for r in api_rows)),
        "by_api": {
            api: {"n": len(api_rows), "successes": sum(1 for r in api_rows if r["success"])}
            for api, api_rows in sorted(by_api.items())
        },
    }


# ------------------------------------------------------------------------------------------------- the policy


class Policy:
    """A Hugging Face checkpoint generating the next assistant message of many conversations at once, as
    `toolenv.generate` does (its attention, its cut), in chunks of `batch` left-padded conversations."""

    def __init__(self, model_dir: str | os.PathLike[str], *, batch: int = 512, seed: int = 0) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from toolenv import attention

        torch.manual_seed(seed)
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation=attention.implementation())
        self.model.to("cuda" if torch.cuda.is_available() else "cpu")
        self.model.eval()
        self.batch = batch

    def prompt(self, messages: list[Json]) -> list[int]:
        from toolenv.tokens import chat_ids

        return chat_ids(self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True))

    def generate(
        self, prompts: list[list[int]], *, max_tokens: int, max_seq_len: int, temperature: float, stop: list[str]
    ) -> list[tuple[list[int], str]]:
        """The message of every prompt: (its tokens, its text). Shorter prompts are batched together."""
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        out: list[tuple[list[int], str] | None] = [None] * len(prompts)
        size = self.batch
        start = 0
        while start < len(order):
            chunk = order[start : start + size]
            try:
                texts = self._generate([prompts[i] for i in chunk], max_tokens, max_seq_len, temperature, stop)
            except self.torch.cuda.OutOfMemoryError:
                if size == 1:
                    raise
                size = max(1, size // 2)
                self.torch.cuda.empty_cache()
                continue
            for i, text in zip(chunk, texts, strict=True):
                out[i] = text
            start += len(chunk)
        return [o for o in out if o is not None]

    def _generate(
        self, prompts: list[list[int]], max_tokens: int, max_seq_len: int, temperature: float, stop: list[str]
    ) -> list[tuple[list[int], str]]:
        from toolenv.tokens import message_tokens

        torch = self.torch
        tokenizer = self.tokenizer
        width = max(len(p) for p in prompts)
        room = min(max_tokens, max_seq_len - min(len(p) for p in prompts))
        pad = tokenizer.pad_token_id
        device = self.model.device
        input_ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
        sampling: Json = {"do_sample": False} if temperature <= 0 else {"do_sample": True, "temperature": temperature}
        with torch.no_grad():
            generated = self.model.generate(
                input_ids=input_ids,
                attention_mask=mask,
                max_new_tokens=room,
                stop_strings=stop or None,
                tokenizer=tokenizer,
                pad_token_id=pad,
                eos_token_id=tokenizer.eos_token_id,
                use_cache=True,
                **sampling,
            )
        texts = []
        for prompt, row in zip(prompts, generated[:, width:].tolist(), strict=True):
            texts.append(message_tokens(tokenizer, row, stop, min(max_tokens, max_seq_len - len(prompt))))
        return texts


@dataclass
class _Episode:
    task: Json
    run: int
    seed: int
    id: str = ""
    messages: list[Json] = field(default_factory=list)
    stop: list[str] = field(default_factory=lambda: list(STOP_SEQUENCES))
    turns: int = 0
    finish: str = "turn_cap"
    answer: str | None = None
    error: str | None = None
    done: bool = False
    calls: list[Json] = field(default_factory=list)
    completion_tokens: int = 0


def play(
    client: Any,
    policy: Policy,
    jobs: Sequence[tuple[Json, int]],
    settings: EpisodeSettings,
    *,
    temperature: float,
    seed: int,
    log: Any = None,
) -> list[Json]:
    """Plays one episode per (task, run) through the server's text turns, every episode's turn generated in one
    batch; answers each run as `score` reads it. An episode the server or the budget fails ends as `error`."""
    episodes = [_Episode(task=task, run=run, seed=run_seed(task, run, seed)) for task, run in jobs]
    started = time.time()
    with ThreadPoolExecutor(max_workers=HTTP_THREADS) as pool:

        def create(e: _Episode) -> None:
            body = settings.episode(e.task, e.seed)
            created = client.create_episode(body.pop("task"), seed=body.pop("seed"), **body)
            e.id = created["id"]
            e.messages = [{"role": m["role"], "content": m["content"]} for m in created["messages"]]
            e.stop = list(created.get("stop") or STOP_SEQUENCES)

        list(pool.map(create, episodes))
        for turn in range(1, settings.max_turns + 1):
            active = [e for e in episodes if not e.done]
            if not active:
                break
            prompts = []
            for e in active:
                ids = policy.prompt(e.messages)
                if len(ids) >= settings.max_seq_len:
                    e.done, e.finish = True, "error"
                    e.error = f"the conversation outgrew --max-seq-len {settings.max_seq_len}"
                else:
                    prompts.append((e, ids))
            if not prompts:
                break
            stop = prompts[0][0].stop
            messages = policy.generate(
                [ids for _, ids in prompts],
                max_tokens=settings.max_turn_tokens,
                max_seq_len=settings.max_seq_len,
                temperature=temperature,
                stop=stop,
            )

            def send(pair: tuple[tuple[_Episode, list[int]], tuple[list[int], str]]) -> None:
                (e, _), (tokens, text) = pair
                e.completion_tokens += len(tokens)
                e.messages.append({"role": "assistant", "content": text})
                try:
                    result = client.turn(e.id, text, state=True)
                except Exception as error:  # noqa: BLE001 - the run fails, the batch goes on (as runAgent)
                    e.done, e.finish, e.error = True, "error", str(error)
                    return
                e.turns = result.get("turn", e.turns + 1)
                e.calls = list((result.get("state") or {}).get("calls", []))
                if result.get("finish") == "answer":
                    e.done, e.finish, e.answer = True, "answer", result.get("answer")
                    return
                if result.get("messages"):
                    e.messages += [{"role": m["role"], "content": m["content"]} for m in result["messages"]]
                elif result.get("observation"):
                    observation = result["observation"]
                    e.messages.append({"role": observation["role"], "content": observation["content"]})
                if result.get("done"):
                    e.done = True
                    e.finish = "episode_done" if result.get("finish") == "episode_done" else "turn_cap"

            list(pool.map(send, zip(prompts, messages, strict=True)))
            if log:
                going = sum(1 for e in episodes if not e.done)
                log(f"turn {turn}: {len(prompts)} generated, {going} still going ({time.time() - started:.0f} s)")

        def close(e: _Episode) -> Json:
            run: Json = {
                "run": e.run,
                "seed": e.seed,
                "finish": e.finish,
                "answer": e.answer,
                "error": e.error,
                "turns": e.turns,
                "calls": e.calls,
                "messages": e.messages,
                "completion_tokens": e.completion_tokens,
            }
            if e.id:
                try:
                    run["rewards"] = client.rewards(e.id)
                    run["trajectory"] = client.trajectory(e.id)
                except Exception as error:  # noqa: BLE001 - scored without them, as eval scores such a run
                    run["error"] = run["error"] or f"rewards or trajectory: {error}"
                finally:
                    try:
                        client.delete_episode(e.id)
                    except Exception:  # noqa: BLE001 - the server drops idle episodes anyway
                        pass
            return score(e.task, run)

        return list(pool.map(close, episodes))


# ------------------------------------------------------------------------------------------------ the weights

_GGUF_GLOBAL = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight"}
_GGUF_BLOCK = {
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json")


def _reverse_permute(weights: Any, heads: int) -> Any:
    """llama.cpp's converter interleaves the rotary halves of q_proj and k_proj rows; this undoes it."""
    dim = weights.shape[0] // heads // 2
    return weights.reshape(heads, dim, 2, *weights.shape[1:]).swapaxes(2, 1).reshape(weights.shape)


def materialize(gguf_file: Path, meta: Path, out: Path) -> Json:
    """SmolLM2-135M-Instruct as `toolenv model smollm2` writes it (float32 safetensors, ToolEnv's chat template and
    tokens), from the GGUF it dequantizes and the small files it writes beside (`meta`: config, tokenizer, template).
    The GGUF's own tokenizer is not rebuilt (30 s of parsing where the dequantization takes 3): `meta` carries it."""
    import numpy as np
    import torch
    from gguf import GGUFReader
    from gguf.quants import dequantize
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(meta)
    heads, kv_heads = config.num_attention_heads, config.num_key_value_heads
    state = {}
    for tensor in GGUFReader(str(gguf_file)).tensors:
        weights = np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        name = tensor.name
        if name in _GGUF_GLOBAL:
            target = _GGUF_GLOBAL[name]
        else:
            block, layer, kind, suffix = name.split(".", 3)
            if block != "blk" or kind not in _GGUF_BLOCK:
                raise ValueError(f"{gguf_file}: unexpected tensor {name}")
            target = f"model.layers.{layer}.{_GGUF_BLOCK[kind]}.{suffix}"
            if kind == "attn_q":
                weights = _reverse_permute(weights, heads)
            elif kind == "attn_k":
                weights = _reverse_permute(weights, kv_heads)
        state[target] = torch.from_numpy(np.array(weights, dtype=np.float32, order="C"))  # a writable copy
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(state, strict=False)
    tied = {"lm_head.weight"} if getattr(config, "tie_word_embeddings", False) else set()
    if unexpected or set(missing) - tied:
        raise ValueError(f"{gguf_file} does not fit {meta}/config.json: missing {missing}, unexpected {unexpected}")
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    for name in (*TOKENIZER_FILES, "generation_config.json", "config.json"):
        if (meta / name).exists():
            shutil.copyfile(meta / name, out / name)
    return {"dir": str(out), "parameters": sum(p.numel() for p in model.parameters()), "digest": weights_digest(out)}


def weights_digest(model_dir: Path) -> str:
    """sha256 over a model directory's tensors (name, dtype, shape, bytes, in name order): equal digests, equal
    weights, whatever wrote the file."""
    import torch
    from safetensors import safe_open

    digest = hashlib.sha256()
    for file in sorted(Path(model_dir).glob("*.safetensors")):
        with safe_open(str(file), framework="pt") as tensors:
            for name in sorted(tensors.keys()):
                tensor = tensors.get_tensor(name).contiguous()
                digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
                digest.update(tensor.view(-1).view(dtype=torch.uint8).numpy().tobytes())
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------------- the whole run


def read_jsonl(path: Path) -> list[Json]:
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_jsonl(path: Path, rows: Iterable[Json]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


@dataclass
class Plan:
    """What the run does: sizes, rates and the wall-clock budget, full scale by default."""

    budget_s: float = 360.0  # no round starts that would not end, evaluated, within it
    grace_s: float = 45.0  # past the budget, the evaluations still running get this long
    heldout: int = 0  # 0: every task of the file
    dev: int = 0
    base: bool = True
    sft_epochs: float = 2.0
    sft_steps: int = 0  # > 0: exactly this many steps instead of epochs
    sft_batch: int = 8
    sft_lr: float = 2e-4
    lora: int = 16
    ei_tasks: int = 0
    ei_samples: int = 4
    ei_temperature: float = 0.8  # at 1.0 an earlier SFT policy failed every rollout; at 0.7 this one repeats itself
    ei_rounds: int = 3
    ei_lr: float = 1e-4
    ei_steps: int = 0  # > 0: exactly this many steps a round instead of one epoch
    ei_replay: float = 1.0  # demonstrations mixed in, per kept sample
    ei_keep: str = "success"  # "all": every sample (a plumbing check at tiny scale, not expert iteration)
    batch: int = 512
    seed: int = 1


class Runner:
    """The run on one machine: the packed server, then the stages, each a subprocess of this Python."""

    def __init__(
        self, stage: Path, out: Path, plan: Plan, *, model_dir: Path | None = None, episode: Json | None = None
    ) -> None:
        self.stage = stage
        self.out = out
        self.plan = plan
        self.started = time.time()
        self.deadline = self.started + plan.budget_s
        self.out.mkdir(parents=True, exist_ok=True)
        self.work = stage / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.pack = json.loads((stage / "data" / "pack.json").read_text())
        # The demonstrations' budgets; `episode` overrides them only for a plumbing check (a tiny model never stops).
        self.episode = {**self.pack["episode"], **(episode or {})}
        self.settings = EpisodeSettings(**self.episode)
        self.model_dir = model_dir or stage / "model" / "smollm2"
        self.log_file = open(out / "runner.log", "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run
        self.lock = threading.Lock()
        self.results: Json = {
            "model": model_name(self.model_dir),
            "plan": plan.__dict__,
            "pack": self.pack.get("summary", {}),
            "stages": [],
            "rounds": [],
        }
        self.timings: list[Json] = []
        self.server: subprocess.Popen | None = None
        self.children: list[subprocess.Popen] = []
        self.url = ""

    # -- plumbing

    def elapsed(self) -> float:
        return time.time() - self.started

    def log(self, line: str) -> None:
        text = f"[{self.elapsed():6.1f} s] {line}"
        with self.lock:
            print(text, flush=True)
            self.log_file.write(text + "\n")
            self.log_file.flush()

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "TOOLENV_URL": self.url,
            "TRL_EXPERIMENTAL_SILENCE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }

    def start_server(self) -> None:
        node = self.stage / "node" / "bin" / "node"
        cli = self.stage / "app" / "dist" / "src" / "cli" / "toolenv.js"
        command = [str(node), str(cli), "serve", "--library", str(self.stage / "library"), "--port", "0", "--json"]
        command += ["--cache", str(self.work / "responses.db"), "--error-rate", "0", "--seed", "0"]
        log = open(self.out / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - the server's whole life
        self.server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        assert self.server.stdout is not None
        line = self.server.stdout.readline()
        if not line:
            raise RuntimeError(f"the packed server did not start: see {self.out / 'server.log'}")
        started = json.loads(line)
        # Whatever the server prints later goes to its log: a full pipe would stop it.
        threading.Thread(target=_drain, args=(self.server.stdout, log), daemon=True).start()
        self.url = started["url"]
        self.log(f"server {self.url}: {started['tools']} tools, started in {started['startup_ms']} ms")

    def stop_server(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()

    def spawn_play(self, name: str, model: Path, tasks: list[Path], *, runs: int, temperature: float) -> Any:
        """A play in a subprocess: its rows land in work/NAME.jsonl. Returns a handle `wait_play` takes."""
        rows = self.work / f"{name}.jsonl"
        command = [sys.executable, "-m", "toolenv.gpu_run", "play", "--server", self.url, "--model", str(model)]
        for file in tasks:
            command += ["--tasks", str(file)]
        command += ["--runs", str(runs), "--temperature", str(temperature), "--seed", str(self.plan.seed)]
        command += ["--batch", str(self.plan.batch), "--out", str(rows), "--settings", json.dumps(self.episode)]
        log = open(self.out / f"{name}.log", "w", encoding="utf-8")  # noqa: SIM115 - closed by wait_play
        self.log(f"{name}: playing {', '.join(f.name for f in tasks)} ({runs} run(s) each, temperature {temperature})")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=self.env())
        self.children.append(process)
        return {"name": name, "process": process, "rows": rows, "log": log, "started": time.time()}

    def wait_play(self, handle: Json, *, hard_deadline: float | None = None) -> list[Json] | None:
        process: subprocess.Popen = handle["process"]
        try:
            timeout = None if hard_deadline is None else max(1.0, hard_deadline - time.time())
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            code = None
        handle["log"].close()
        seconds = time.time() - handle["started"]
        self.timings.append({"what": handle["name"], "seconds": round(seconds, 1)})
        if code != 0:
            why = "cut at the deadline" if code is None else f"exited {code}"
            self.log(f"{handle['name']}: {why} after {seconds:.0f} s; see {self.out / (handle['name'] + '.log')}")
            return None
        self.log(f"{handle['name']}: done in {seconds:.0f} s")
        return read_jsonl(handle["rows"])

    def sft(self, name: str, model: Path, data: Path, *, examples: int, epochs: float, steps: int, lr: float) -> Json:
        """`python -m toolenv.trl RUN/train.json`, the SFT `toolenv train --stage sft` launches, on the GPU."""
        run = self.work / name
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
        steps = steps if steps > 0 else max(1, math.ceil(examples * epochs / self.plan.sft_batch))
        config = {
            "engine": "trl",
            "stage": "sft",
            "run_dir": str(run),
            "model": str(model),
            "server": self.url,
            "steps": steps,
            "group": 1,
            "prompts_per_step": self.plan.sft_batch,
            "seed": self.plan.seed,
            "sft_data": str(data),
            "episode": {},
            "max_turn_tokens": self.settings.max_turn_tokens,
            "max_completion_length": self.settings.max_seq_len,
            "max_seq_len": self.settings.max_seq_len,
            "lora_rank": self.plan.lora,
            "lora_layers": 0,
            # One 135M model and 2,048-token conversations: recomputing activations would only cost time on a GPU.
            "trainer": {"learning_rate": lr, "gradient_checkpointing": False},
        }
        (run / "train.json").write_text(json.dumps(config, indent=2) + "\n")
        self.log(f"{name}: SFT of {model.name} on {examples} conversations, {steps} steps of {self.plan.sft_batch}")
        t0 = time.time()
        limit = max(30.0, self.deadline + self.plan.grace_s - time.time())
        with open(run / "engine.log", "w", encoding="utf-8") as log:
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "toolenv.trl", str(run / "train.json")],
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    env=self.env(),
                    timeout=limit,
                )
            except subprocess.TimeoutExpired as error:
                raise RuntimeError(f"{name}: the SFT did not finish within the budget ({limit:.0f} s)") from error
        seconds = time.time() - t0
        self.timings.append({"what": name, "seconds": round(seconds, 1)})
        losses = [r["loss"] for r in _trainer_logs(run) if "loss" in r]
        shutil.copyfile(run / "engine.log", self.out / f"{name}.engine.log")
        if (run / "trainer.jsonl").exists():
            shutil.copyfile(run / "trainer.jsonl", self.out / f"{name}.trainer.jsonl")
        if done.returncode != 0:
            raise RuntimeError(f"{name}: the SFT exited {done.returncode}; see {self.out / (name + '.engine.log')}")
        said = [line for line in done.stdout.splitlines() if line.startswith('{"checkpoint"')]
        if not said:
            raise RuntimeError(f"{name}: the SFT named no checkpoint; see {self.out / (name + '.engine.log')}")
        checkpoint = Path(json.loads(said[-1])["checkpoint"])
        first, last = (losses[0], losses[-1]) if losses else (None, None)
        self.log(f"{name}: {steps} steps in {seconds:.0f} s, loss {first} -> {last}")
        return {
            "checkpoint": checkpoint,
            "steps": steps,
            "seconds": round(seconds, 1),
            "loss": [first, last],
            "started": t0,
        }

    # -- the run

    def task_file(self, name: str, limit: int) -> Path:
        tasks = read_jsonl(self.stage / "data" / f"{name}.jsonl")
        if limit > 0:
            tasks = tasks[:limit]
        path = self.work / f"{name}.jsonl"
        write_jsonl(path, tasks)
        return path

    def record_stage(self, stage: str, rows: list[Json] | None, extra: Json) -> None:
        entry: Json = {"stage": stage, **extra}
        if rows is not None:
            write_jsonl(
                self.out / f"eval-{stage}.jsonl", ({k: v for k, v in r.items() if k != "messages"} for r in rows)
            )
            for split in ("heldout", "dev"):
                entry[split] = summarize([r for r in rows if r.get("split") == split])
            entry["heldout_by_api"] = entry["heldout"].pop("by_api")
            entry["dev"].pop("by_api")
            h = entry["heldout"]
            self.log(
                f"{stage}: held-out {h['successes']}/{h['n']} ({_pct(h['success'])}, 95% CI {_pct(h['ci95'][0])}-"
                f"{_pct(h['ci95'][1])}), well-formed {_pct(h['well_formed'])}, R_traj {_num(h['r_traj'])}; "
                f"dev {entry['dev']['successes']}/{entry['dev']['n']}"
            )
        else:
            entry["missing"] = True
        self.results["stages"].append(entry)
        self.write_outputs()

    def write_outputs(self) -> None:
        self.results["wall_s"] = round(self.elapsed(), 1)
        self.results["chosen_on_dev"] = chosen_on_dev(self.results["stages"])
        self.results["timings"] = self.timings
        (self.out / "results.json").write_text(json.dumps(self.results, indent=2) + "\n")
        (self.out / "results.md").write_text(render_markdown(self.results))
        write_curve(self.out, self.results)

    def run(self) -> Json:
        plan = self.plan
        self.log(f"budget {plan.budget_s:.0f} s; episodes {self.settings.__dict__}")
        self.start_server()
        try:
            return self._stages()
        finally:
            for child in self.children:
                if child.poll() is None:
                    child.kill()
            self.stop_server()
            self.write_outputs()
            self.log(f"outputs in {self.out} ({self.elapsed():.0f} s)")

    def _stages(self) -> Json:
        plan = self.plan
        heldout = self.task_file("heldout", plan.heldout)
        dev = self.task_file("dev", plan.dev)
        ei_tasks = self.task_file("ei", plan.ei_tasks)
        demos = self.stage / "data" / "demos.jsonl"
        n_demos = len(read_jsonl(demos))
        evals = [heldout, dev]
        base = self.model_dir
        pending: list[tuple[str, Json, Json]] = []
        if plan.base:
            pending.append(("base", self.spawn_play("play-base", base, evals, runs=1, temperature=0), {"steps": 0}))
        try:
            sft = self.sft(
                "sft", base, demos, examples=n_demos, epochs=plan.sft_epochs, steps=plan.sft_steps, lr=plan.sft_lr
            )
        except RuntimeError:
            self.collect(pending)  # the base's evaluation is still a result
            raise
        self.results["sft"] = {**sft, "checkpoint": str(sft["checkpoint"]), "demonstrations": n_demos}
        del self.results["sft"]["started"]
        policy = sft["checkpoint"]
        pending.append(
            ("sft", self.spawn_play("play-sft", policy, evals, runs=1, temperature=0), {"steps": sft["steps"]})
        )
        rng = random.Random(plan.seed)
        demo_rows = read_jsonl(demos)
        round_s, eval_s = 150.0, 75.0  # priors until the first round is measured
        for number in range(1, plan.ei_rounds + 1):
            # A round: sampling, its SFT, then its evaluation (beside the next round's sampling, or at the end).
            left = self.deadline - time.time()
            if round_s + eval_s > left:
                self.log(f"round {number}: not started: {left:.0f} s left, ~{round_s + eval_s:.0f} s needed")
                break
            t0 = time.time()
            sampled = self.wait_play(
                self.spawn_play(
                    f"sample-{number}", policy, [ei_tasks], runs=plan.ei_samples, temperature=plan.ei_temperature
                ),
                hard_deadline=self.deadline + plan.grace_s,
            )
            if sampled is None:
                break
            kept = select_samples(sampled, keep=plan.ei_keep)
            summary = summarize(sampled)
            entry: Json = {
                "round": number,
                "samples": len(sampled),
                "sample_successes": summary["successes"],
                "sample_success": summary["success"],
                "sample_ci95": summary["ci95"],
                "sample_r_traj": summary["r_traj"],
                "kept": len(kept),
            }
            self.log(
                f"round {number}: {summary['successes']} of {len(sampled)} samples solved their task, "
                f"{len(kept)} distinct kept"
            )
            if not kept:
                entry["stopped"] = "no sample solved its task: nothing to imitate"
                self.results["rounds"].append(entry)
                self.log(f"round {number}: {entry['stopped']}")
                break
            replay = rng.sample(demo_rows, min(len(demo_rows), round(len(kept) * plan.ei_replay)))
            data = self.work / f"ei-{number}.jsonl"
            write_jsonl(
                data, [{"messages": r["messages"]} for r in kept] + [{"messages": r["messages"]} for r in replay]
            )
            try:
                trained = self.sft(
                    f"ei-{number}",
                    policy,
                    data,
                    examples=len(kept) + len(replay),
                    epochs=1.0,
                    steps=plan.ei_steps,
                    lr=plan.ei_lr,
                )
            except RuntimeError as error:
                entry["stopped"] = str(error)
                self.results["rounds"].append(entry)
                self.log(f"round {number}: {error}")
                break
            policy = trained["checkpoint"]
            entry.update(
                {"replay": len(replay), "steps": trained["steps"], "loss": trained["loss"], "sft_s": trained["seconds"]}
            )
            self.results["rounds"].append(entry)
            pending.append(
                (f"ei-{number}", self.spawn_play(f"play-ei-{number}", policy, evals, runs=1, temperature=0), entry)
            )
            round_s = time.time() - t0
            eval_s = max(eval_s, 0.8 * (trained["started"] - t0))  # a greedy evaluation plays fewer, shorter episodes
            self.write_outputs()
        self.collect(pending)
        return self.results

    def collect(self, pending: list[tuple[str, Json, Json]]) -> None:
        """Every spawned evaluation gets what is left of the budget and the grace, in the order they started."""
        for stage, handle, extra in pending:
            rows = self.wait_play(handle, hard_deadline=self.deadline + self.plan.grace_s)
            self.record_stage(stage, rows, {"steps": extra.get("steps")})


def chosen_on_dev(stages: Sequence[Json]) -> str | None:
    """The trained stage with the most dev successes (the earliest of a tie): the one whose held-out number counts,
    chosen without looking at the held-out tasks."""
    trained = [s for s in stages if not s.get("missing") and s["stage"] != "base" and s["dev"]["n"] > 0]
    if not trained:
        return None
    return max(trained, key=lambda s: (s["dev"]["successes"], -stages.index(s)))["stage"]


def model_name(model_dir: Path) -> str:
    """SmolLM2-135M-Instruct.Q4_1.gguf for the packed policy (`toolenv_source` in its config), else the folder."""
    config = json.loads((model_dir / "config.json").read_text())
    return (config.get("toolenv_source") or {}).get("gguf") or model_dir.name


def select_samples(rows: Sequence[Json], *, keep: str = "success") -> list[Json]:
    """Expert iteration's data: the sampled episodes the server scored a success, one of each distinct conversation
    per task (a policy this sure of itself samples the same one several times)."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for row in rows:
        if keep == "success" and row.get("server_success") is not True:
            continue
        key = (str(row["task_id"]), json.dumps(row["messages"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        kept.append(row)
    return kept


def _drain(stream: Any, sink: Any) -> None:
    for line in stream:
        sink.write(line)
        sink.flush()


def _trainer_logs(run: Path) -> list[Json]:
    path = run / "trainer.jsonl"
    return read_jsonl(path) if path.exists() else []


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def render_markdown(results: Json) -> str:
    """results.md: the held-out table per stage (95% Wilson intervals), the rounds, and held-out success by API."""
    lines = [
        "# ToolEnv on one GPU: cold-start SFT, then expert iteration",
        "",
        f"Policy {results.get('model', '?')}; wall time {results.get('wall_s')} s. Held-out and dev tasks use APIs no "
        "training task uses; greedy decoding.",
        "",
        "| stage | steps | held-out success | 95% CI | well-formed turns | path | R_step | R_phase | R_traj "
        "| dev success | dev 95% CI |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for stage in results.get("stages", []):
        if stage.get("missing"):
            lines.append(f"| {stage['stage']} | {stage.get('steps')} | (not finished in the budget) | | | | | | | | |")
            continue
        h, d = stage["heldout"], stage["dev"]
        lines.append(
            f"| {stage['stage']} | {stage.get('steps')} | {h['successes']}/{h['n']} ({_pct(h['success'])}) "
            f"| {_pct(h['ci95'][0])}–{_pct(h['ci95'][1])} | {_pct(h['well_formed'])} | {_pct(h['path'])} "
            f"| {_num(h['r_step'])} | {_num(h['r_phase'])} | {_num(h['r_traj'])} "
            f"| {d['successes']}/{d['n']} ({_pct(d['success'])}) | {_pct(d['ci95'][0])}–{_pct(d['ci95'][1])} |"
        )
    chosen = next((s for s in results.get("stages", []) if s["stage"] == results.get("chosen_on_dev")), None)
    if chosen is not None:
        h, d = chosen["heldout"], chosen["dev"]
        lines += [
            "",
            f"Chosen on dev (most dev successes, the earliest of a tie): **{chosen['stage']}**, dev {d['successes']}/"
            f"{d['n']}; its held-out success {h['successes']}/{h['n']} ({_pct(h['success'])}, 95% CI "
            f"{_pct(h['ci95'][0])}–{_pct(h['ci95'][1])}).",
        ]
    rounds = results.get("rounds", [])
    if rounds:
        lines += [
            "",
            "Expert iteration, round by round (samples at the plan's temperature on training-API tasks the SFT did "
            "not see; the kept ones, and as many demonstrations, are the round's SFT data):",
            "",
            "| round | samples | solved | 95% CI | R_traj | kept | steps | loss |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rounds:
            ci = r.get("sample_ci95") or [None, None]
            loss = r.get("loss") or [None, None]
            lines.append(
                f"| {r['round']} | {r['samples']} | {r['sample_successes']} ({_pct(r['sample_success'])}) "
                f"| {_pct(ci[0])}–{_pct(ci[1])} | {_num(r.get('sample_r_traj'))} | {r['kept']} "
                f"| {r.get('steps', '–')} | {_num(loss[0])} → {_num(loss[1])} |"
            )
            if r.get("stopped"):
                lines.append(f"| | {r['stopped']} | | | | | | |")
    stages = [s for s in results.get("stages", []) if not s.get("missing")]
    if stages:
        apis = sorted({api for s in stages for api in s["heldout_by_api"]})
        lines += ["", "Held-out success by API (solved / tasks):", ""]
        lines.append("| API | " + " | ".join(s["stage"] for s in stages) + " |")
        lines.append("|---|" + "---:|" * len(stages))
        for api in apis:
            cells = []
            for s in stages:
                a = s["heldout_by_api"].get(api)
                cells.append("–" if a is None else f"{a['successes']}/{a['n']}")
            lines.append(f"| {api} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def curve_points(results: Json) -> list[Json]:
    """A point per trained stage (SFT is round 0): held-out and dev success, the samples its round learned from."""
    rounds = {r["round"]: r for r in results.get("rounds", [])}
    points = []
    for stage in results.get("stages", []):
        if stage.get("missing") or stage["stage"] == "base":
            continue
        number = 0 if stage["stage"] == "sft" else int(stage["stage"].split("-")[1])
        r = rounds.get(number, {})
        h, d = stage["heldout"], stage["dev"]
        points.append(
            {
                "round": number,
                "heldout_success": h["success"],
                "heldout_lo": h["ci95"][0],
                "heldout_hi": h["ci95"][1],
                "dev_success": d["success"],
                "sample_success": r.get("sample_success"),
            }
        )
    return sorted(points, key=lambda p: p["round"])


def write_curve(out: Path, results: Json) -> None:
    """curve.csv always; curve.png where matplotlib is installed, else curve.svg (written by hand)."""
    points = curve_points(results)
    header = ["round", "heldout_success", "heldout_lo", "heldout_hi", "dev_success", "sample_success"]
    (out / "curve.csv").write_text("\n".join([",".join(header), *_csv(points, header)]) + "\n")
    if not points:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        (out / "curve.svg").write_text(_svg(points))
        return
    x = [p["round"] for p in points]
    fig, ax = plt.subplots(figsize=(6, 4))
    y = [p["heldout_success"] for p in points]
    lo = [p["heldout_success"] - p["heldout_lo"] for p in points]
    hi = [p["heldout_hi"] - p["heldout_success"] for p in points]
    ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=4, label="held-out (greedy, 95% Wilson)")
    ax.plot(x, [p["dev_success"] for p in points], marker="s", label="dev (greedy)")
    xs = [p["round"] for p in points if p["sample_success"] is not None]
    ax.plot(xs, [p["sample_success"] for p in points if p["sample_success"] is not None], marker="^", label="samples")
    ax.set_xlabel("expert-iteration round (0: after SFT)")
    ax.set_ylabel("success")
    ax.set_ylim(0, 1)
    ax.set_xticks(x)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=120)
    plt.close(fig)


def _csv(points: list[Json], header: list[str]) -> list[str]:
    def cell(value: Any) -> str:
        return "" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)

    return [",".join(cell(p[k]) for k in header) for p in points]


def _svg(points: list[Json]) -> str:
    """The curve as a small SVG: success (0-1) by round, the held-out interval as bars."""
    width, height, left, bottom, top, right = 480, 300, 50, 40, 20, 20
    rounds = [p["round"] for p in points]
    span = max(1, max(rounds) - min(rounds))

    def xy(r: float, v: float) -> tuple[float, float]:
        x = left + (r - min(rounds)) / span * (width - left - right)
        return x, top + (1 - v) * (height - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-size="11">']
    parts.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    for v in (0, 0.25, 0.5, 0.75, 1):
        _, y = xy(min(rounds), v)
        parts.append(f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{v:.2f}</text>')
    for r in rounds:
        x, y = xy(r, 0)
        parts.append(f'<text x="{x}" y="{y + 16}" text-anchor="middle">{r}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 4}" text-anchor="middle">round (0: after SFT)</text>')
    series = [
        ("heldout_success", "#1f77b4", "held-out"),
        ("dev_success", "#ff7f0e", "dev"),
        ("sample_success", "#2ca02c", "samples"),
    ]
    for i, (key, colour, label) in enumerate(series):
        known = [(p["round"], p[key]) for p in points if p[key] is not None]
        if known:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(r, v) for r, v in known))
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for r, v in known:
                x, y = xy(r, v)
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
        parts.append(f'<text x="{left + 8 + 90 * i}" y="{top + 10}" fill="{colour}">{label}</text>')
    for p in points:
        x, y0 = xy(p["round"], p["heldout_lo"])
        _, y1 = xy(p["round"], p["heldout_hi"])
        parts.append(f'<line x1="{x:.1f}" y1="{y0:.1f}" x2="{x:.1f}" y2="{y1:.1f}" stroke="#1f77b4"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------------------------------------ preflight


def preflight(stage: Path) -> Json:
    """What this machine brings and what the pack adds, imported for real; raises with the reason when one fails."""
    import importlib
    import platform

    report: Json = {"python": platform.python_version(), "packages": {}}
    for name in (
        "torch",
        "transformers",
        "peft",
        "accelerate",
        "trl",
        "datasets",
        "pyarrow",
        "pandas",
        "gguf",
        "httpx",
    ):
        module = importlib.import_module(name)
        report["packages"][name] = {
            "version": getattr(module, "__version__", "?"),
            "from": str(Path(module.__file__).parent),
        }
    import torch

    importlib.import_module("trl").SFTTrainer  # noqa: B018 - TRL imports its trainers lazily
    importlib.import_module("toolenv.trl")
    report["cuda"] = torch.cuda.is_available()
    if report["cuda"]:
        report["gpu"] = torch.cuda.get_device_name(0)
        report["bf16"] = torch.cuda.is_bf16_supported()
    node = stage / "node" / "bin" / "node"
    if node.exists():
        report["node"] = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    report["glibc"] = platform.libc_ver()[1]
    return report


# ------------------------------------------------------------------------------------------------------- main


def _play_main(args: argparse.Namespace) -> int:
    from toolenv.client import ToolEnvClient

    settings = EpisodeSettings(**json.loads(args.settings)) if args.settings else EpisodeSettings()
    jobs = []
    for file in args.tasks:
        split = Path(file).stem
        for task in read_jsonl(Path(file)):
            task.setdefault("meta", {})
            task["meta"] = {**task["meta"], "split": task["meta"].get("split", split)}
            jobs += [(task, run) for run in range(1, args.runs + 1)]
    t0 = time.time()
    policy = Policy(args.model, batch=args.batch, seed=args.seed)
    print(f"policy {args.model} loaded in {time.time() - t0:.1f} s; {len(jobs)} episodes", flush=True)
    with ToolEnvClient(args.server) as client:
        rows = play(
            client,
            policy,
            jobs,
            settings,
            temperature=args.temperature,
            seed=args.seed,
            log=lambda s: print(s, flush=True),
        )
    for row, (task, _) in zip(rows, jobs, strict=True):
        row["split"] = task["meta"]["split"]
    write_jsonl(Path(args.out), rows)
    print(json.dumps({"episodes": len(rows), "seconds": round(time.time() - t0, 1)}), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolenv.gpu_run", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play episodes of task files with a checkpoint; rows as JSON Lines")
    p.add_argument("--server", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--tasks", action="append", required=True)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--settings", help="EpisodeSettings as JSON (the pack's episode budgets)")
    p.add_argument("--out", required=True)
    m = sub.add_parser("materialize", help="the policy's weights out of the packed GGUF, checked against the pack")
    m.add_argument("--stage", required=True, type=Path)
    f = sub.add_parser("preflight", help="versions and imports: what this machine and the pack bring")
    f.add_argument("--stage", required=True, type=Path)
    r = sub.add_parser("run", help="serve, SFT, expert iteration, held-out evaluation; the table and curve in --out")
    r.add_argument("--stage", required=True, type=Path)
    r.add_argument("--out", required=True, type=Path)
    r.add_argument("--model", type=Path, help="start from this model directory instead of the packed SmolLM2")
    r.add_argument("--episode", type=json.loads, help="JSON over the pack's episode budgets (a tiny-scale check only)")
    for name, value in Plan().__dict__.items():
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if isinstance(value, bool) else type(value)
        r.add_argument(f"--{name.replace('_', '-')}", type=kind, default=value)
    args = parser.parse_args(argv)
    if args.command == "play":
        return _play_main(args)
    if args.command == "preflight":
        print(json.dumps(preflight(args.stage), indent=2))
        return 0
    if args.command == "materialize":
        pack = json.loads((args.stage / "data" / "pack.json").read_text())
        model = pack["model"]
        t0 = time.time()
        written = materialize(
            args.stage / "model" / model["gguf"], args.stage / "model" / "meta", args.stage / "model" / "smollm2"
        )
        if written["digest"] != model["digest"]:
            shutil.rmtree(args.stage / "model" / "smollm2")
            print(f"toolenv: the weights written differ from the pack's ({written['digest']} != {model['digest']})")
            return 1
        print(json.dumps({**written, "seconds": round(time.time() - t0, 1), "identical_to_pack": True}))
        return 0
    plan = Plan(**{k: getattr(args, k) for k in Plan().__dict__})
    try:
        Runner(args.stage, args.out, plan, model_dir=args.model, episode=args.episode).run()
    except RuntimeError as error:
        print(f"toolenv: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
