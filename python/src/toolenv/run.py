"""What `toolenv train` writes into a run directory and the Python side reads back: `train.json`, the tasks, the
records. One reader, so both engines agree on the file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolenv.client import Json


@dataclass
class RunConfig:
    engine: str
    stage: str
    run_dir: Path
    model: str
    server: str
    steps: int
    group: int
    prompts_per_step: int
    seed: int
    tasks: Path | None = None
    sft_data: Path | None = None
    episode: Json = field(default_factory=dict)
    max_turn_tokens: int = 512
    max_completion_length: int = 8192
    max_seq_len: int = 4096
    lora_rank: int = 0
    lora_layers: int = 0
    generation_batch: int = 16
    trainer: Json = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> RunConfig:
        raw: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
        run_dir = Path(raw.pop("run_dir"))
        tasks = raw.pop("tasks", None)
        sft_data = raw.pop("sft_data", None)
        # The launch script exports TOOLENV_URL: a server started after train.json was written wins.
        server = os.environ.get("TOOLENV_URL") or raw.pop("server")
        raw.pop("server", None)
        return cls(
            run_dir=run_dir,
            tasks=Path(tasks) if tasks else None,
            sft_data=Path(sft_data) if sft_data else None,
            server=server,
            **raw,
        )

    def read_tasks(self) -> list[Json]:
        if self.tasks is None:
            raise ValueError("train.json names no tasks file")
        with open(self.tasks, encoding="utf-8") as lines:
            return [json.loads(line) for line in lines if line.strip()]


TASK_MEMBERS = ("id", "query", "reference_tools", "answer", "expect")


def episode_body(task: Json) -> Json:
    """A task-file line as `POST /v1/episodes` takes it: the task's own members, its tool set and seed beside."""
    body: Json = {"task": {k: task[k] for k in TASK_MEMBERS if task.get(k) is not None}}
    if task.get("tools") is not None:
        body["tools"] = task["tools"]
    if task.get("seed") is not None:
        body["seed"] = task["seed"]
    return body
