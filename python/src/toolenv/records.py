"""What a run keeps of each rollout: one JSON line per episode, read back by `toolenv train` into metrics.jsonl.

Engines write from several processes (verl's reward workers), so each process appends to its own file.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from toolenv.client import Json

REWARD_KEYS = ("r_step", "r_phase", "r_traj")


def episode_record(step: int, episode: Json, rewards: Json, trajectory: Json | None, tokens: int) -> Json:
    """The per-rollout line: its training step, the server's rewards and what the episode did."""
    turns = trajectory.get("turns", []) if trajectory else []
    actions = sum(len(t.get("searches", [])) + len(t.get("calls", [])) for t in turns)
    return {
        "step": step,
        "episode": episode["id"],
        "group": episode.get("group"),
        "task": (episode.get("task") or {}).get("id"),
        "seed": episode.get("seed"),
        "r_step": rewards.get("r_step"),
        "r_phase": rewards.get("r_phase"),
        "r_traj": rewards.get("r_traj"),
        "r_ans": rewards.get("r_ans"),
        "success": rewards.get("success"),
        "flagged": rewards.get("flagged"),
        "turns": len(turns),
        "actions": actions,
        "tokens": tokens,
        "time": time.time(),
    }


class RecordWriter:
    """Appends episode lines (and, when asked, whole trajectories) under a run directory."""

    def __init__(self, run_dir: str | os.PathLike[str], *, trajectories: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.trajectories = trajectories
        (self.run_dir / "episodes").mkdir(parents=True, exist_ok=True)
        if trajectories:
            (self.run_dir / "trajectories").mkdir(parents=True, exist_ok=True)

    def write(self, record: Json, trajectory: Any | None = None) -> None:
        name = f"{os.getpid()}.jsonl"
        with open(self.run_dir / "episodes" / name, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        if self.trajectories and trajectory is not None:
            with open(self.run_dir / "trajectories" / name, "a", encoding="utf-8") as out:
                out.write(json.dumps({"step": record["step"], **trajectory}) + "\n")
