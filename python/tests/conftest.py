"""Fixtures: a real ToolEnv server (the built CLI) on a small library these tests write, and the tiny HF model.

Nothing is mocked on the ToolEnv side: the server is `node bin/toolenv serve` on 127.0.0.1, its library built from
the OpenAPI documents in fixtures/specs, its graph and tasks made by the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "bin" / "toolenv"
SPECS = Path(__file__).parent / "fixtures" / "specs"


def toolenv(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess[str]:
    """Runs the built CLI; the Python tests need `npm run build` first (npm test's pretest does it)."""
    env = {**os.environ, "TOOLENV_PYTHON": sys.executable, **kwargs.pop("env", {})}
    run = subprocess.run(["node", str(BIN), *args], capture_output=True, text=True, env=env, **kwargs)
    if check and run.returncode != 0:
        raise AssertionError(f"toolenv {' '.join(args)} exited {run.returncode}:\n{run.stderr[-3000:]}")
    return run


@dataclass
class Server:
    url: str
    library: Path
    tasks: list[dict]
    tasks_file: Path


@pytest.fixture(scope="session")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lib = tmp_path_factory.mktemp("library")
    toolenv("library", "build", "--source", str(SPECS), "--library", str(lib), "--size", "all", "--json")
    toolenv("graph", "build", "--library", str(lib), "--json")
    return lib


# The learning benchmark splits tasks by API, so its library needs several: the notes document under other names.
LEARNING_APIS = ["notes", "memos", "tickets", "recipes", "books", "songs", "trips", "plants", "issues", "orders"]


@pytest.fixture(scope="session")
def learning_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    specs = tmp_path_factory.mktemp("learning-specs")
    text = (SPECS / "notes.json").read_text()
    for name in LEARNING_APIS:
        one = name[:-1]
        renamed = text.replace("notes", name).replace("Notes", name.title()).replace("Note", one.title())
        (specs / f"{name}.json").write_text(renamed.replace("note", one))
    lib = tmp_path_factory.mktemp("learning-library")
    toolenv("library", "build", "--source", str(specs), "--library", str(lib), "--size", "all", "--json")
    toolenv("graph", "build", "--library", str(lib), "--json")
    return lib


@pytest.fixture(scope="session")
def server(library: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("server")
    tasks_file = work / "tasks.jsonl"
    toolenv(
        "tasks", "synth", "--library", str(library), "--count", "20", "--tools", "1-3", "--seed", "3",
        "--out", str(tasks_file), "--json",
    )  # fmt: skip
    tasks = [json.loads(line) for line in tasks_file.read_text().splitlines() if line.strip()]
    with serving(library, work / "cache.db", "--error-rate", "0") as url:
        yield Server(url=url, library=library, tasks=tasks, tasks_file=tasks_file)


@contextmanager
def serving(library: Path, cache: Path, *flags: str) -> Iterator[str]:
    """`toolenv serve` on a free port of 127.0.0.1 for the block; yields its URL, stops it after."""
    process = subprocess.Popen(
        ["node", str(BIN), "serve", "--library", str(library), "--cache", str(cache), "--port", "0", *flags, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    try:
        if not line:
            raise AssertionError(f"toolenv serve did not start: {process.stderr.read() if process.stderr else ''}")
        yield json.loads(line)["url"]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tiny-hf")
    toolenv("model", "tiny-hf", "--out", str(out), "--json")
    return out


MAX_TURNS = 4


@pytest.fixture(scope="session")
def short_data(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SFT conversations of short ParaAct turns, played through the server (see scripted.short_conversations)."""
    from scripted import short_conversations

    from toolenv import ToolEnvClient

    with ToolEnvClient(server.url) as client:
        records = short_conversations(client, server.tasks, max_turns=MAX_TURNS)
    out = tmp_path_factory.mktemp("sft") / "short.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


@pytest.fixture(scope="session")
def single_tasks(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The task file of the one-call tasks the short conversations play."""
    out = tmp_path_factory.mktemp("tasks") / "single.jsonl"
    out.write_text("".join(json.dumps(t) + "\n" for t in server.tasks if t["meta"]["kind"] == "single"))
    return out


@pytest.fixture(scope="session")
def sft_run(server: Server, tiny_model: Path, short_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`toolenv train --stage sft` on the short conversations: the cold-start checkpoint the RL tests start from
    (a random model's rollouts are all malformed, so every group's rewards tie and GRPO has nothing to follow)."""
    run = tmp_path_factory.mktemp("runs") / "sft"
    toolenv(
        "train", "--engine", "trl", "--stage", "sft", "--model", str(tiny_model), "--data", str(short_data),
        "--server", server.url, "--steps", "80", "--batch", "4", "--lr", "1e-2", "--out", str(run), "--json",
    )  # fmt: skip
    return run
