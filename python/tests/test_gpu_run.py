"""The GPU run's pieces that need no GPU (nor torch): the intervals, seeds and scores, the episode loop against the real
server with a scripted policy, the tables and curve, and the pack's parts cut and joined again."""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from scripted import answer, execute, explore, single_task

from toolenv import ToolEnvClient
from toolenv.gpu_run import (
    EpisodeSettings,
    answer_contains,
    chosen_on_dev,
    episode_seed,
    play,
    render_markdown,
    run_seed,
    select_samples,
    summarize,
    wilson,
    write_curve,
)

ROOT = Path(__file__).resolve().parents[2]


def test_wilson_matches_the_closed_form():
    lo, hi = wilson(16, 64)
    assert (round(lo, 4), round(hi, 4)) == (0.1601, 0.3682)
    assert wilson(0, 8)[0] == 0.0 and round(wilson(0, 8)[1], 4) == 0.3244
    assert wilson(8, 8)[1] == 1.0
    assert wilson(0, 0) == (None, None)


def test_seeds_are_toolenv_evals():
    # src/eval/seed.ts episodeSeed(7, "synth-1", 2), computed by the server's own code.
    script = "import('./dist/src/eval/seed.js').then(m => console.log(m.episodeSeed(7, 'synth-1', 2)))"
    node = subprocess.run(["node", "-e", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert episode_seed(7, "synth-1", 2) == int(node.stdout)
    task = {"id": "synth-1", "seed": 7}
    assert run_seed(task, 1, 99) == 7
    assert run_seed(task, 2, 99) == episode_seed(7, "synth-1", 2)
    assert run_seed({"id": "x"}, 1, 5) == episode_seed(5, "x", 1)


def test_answer_contains_is_evals_rule():
    assert answer_contains("The id is ABC-1.", ["abc-1"])
    assert not answer_contains("The id is ABC.", ["abc-1", "abc"])
    assert not answer_contains(None, "x")


class ScriptedPolicy:
    """A policy for `play` that writes given ParaAct messages, turn by turn, one script per episode."""

    def __init__(self, scripts: list[list[str]]) -> None:
        self.scripts = [list(s) for s in scripts]
        self.calls = 0

    def prompt(self, messages: list[dict]) -> list[int]:
        return [0] * len(messages)

    def generate(self, prompts, *, max_tokens, max_seq_len, temperature, stop):
        # The episodes still going, in order: those whose script has messages left.
        self.calls += 1
        going = [s for s in self.scripts if s]
        assert len(going) == len(prompts)
        return [([1, 2, 3], script.pop(0)) for script in going]


def test_play_scores_episodes_as_eval_does(server):
    task = {**single_task(server.tasks), "meta": {"api": "notes-api"}}
    expected = task["answer"] if isinstance(task["answer"], list) else [task["answer"]]
    tool = task["reference_tools"][0]
    solved = [explore("list notes"), execute(tool), answer(" ".join(expected))]
    wrong = [explore("list notes"), execute(tool), answer("I do not know.")]
    policy = ScriptedPolicy([solved, wrong])
    with ToolEnvClient(server.url) as client:
        rows = play(client, policy, [(task, 1), (task, 2)], EpisodeSettings(), temperature=0, seed=1)
        assert client.health()["status"] == "ok"
    assert policy.calls == 3  # one batch a turn, both episodes in it
    good, bad = rows
    assert good["success"] is True and good["server_success"] is True
    assert good["finish"] == "answer" and good["path"] == 1.0 and good["turns"] == 3
    assert good["well_formed_turns"] == 3 and good["r_traj"] > bad["r_traj"]
    assert bad["success"] is False and bad["server_success"] is False
    assert good["seed"] == task["seed"] and bad["seed"] == episode_seed(task["seed"], task["id"], 2)
    assert [m["role"] for m in good["messages"]][-1] == "assistant"
    assert good["messages"][-1]["content"] == solved[-1]
    summary = summarize([{**good, "split": "heldout"}, {**bad, "split": "heldout"}])
    assert summary["successes"] == 1 and summary["n"] == 2 and summary["apis"] == 1 and summary["apis_solved"] == 1
    assert summary["ci95"] == list(wilson(1, 2))
    assert select_samples(rows) == [good]
    assert select_samples([good, good, bad]) == [good]
    assert len(select_samples(rows, keep="all")) == 2


def _stage(name: str, k: int, n: int) -> dict:
    h = summarize([_row(i < k, "api-a" if i % 2 else "api-b") for i in range(n)])
    d = summarize([_row(i < 1, "api-c") for i in range(4)])
    return {"stage": name, "steps": 3, "heldout": h, "dev": d, "heldout_by_api": h.pop("by_api")}


def _row(success: bool, api: str) -> dict:
    return {
        "success": success,
        "server_success": success,
        "api": api,
        "turns": 3,
        "well_formed_turns": 3,
        "path": 1.0 if success else 0.0,
        "r_step": 0.5,
        "r_phase": 0.25,
        "r_traj": 1.0 if success else -0.5,
        "finish": "answer",
    }


def test_table_and_curve(tmp_path):
    results = {
        "wall_s": 400.0,
        "stages": [_stage("base", 0, 8), _stage("sft", 2, 8), _stage("ei-1", 3, 8), {"stage": "ei-2", "missing": True}],
        "rounds": [
            {
                "round": 1,
                "samples": 16,
                "sample_successes": 5,
                "sample_success": 5 / 16,
                "sample_ci95": [0.1, 0.5],
                "kept": 4,
                "steps": 2,
                "loss": [0.5, 0.4],
            }
        ],
    }
    results["chosen_on_dev"] = chosen_on_dev(results["stages"])
    assert results["chosen_on_dev"] == "sft"  # a tie on dev: the earliest trained stage, never the base
    markdown = render_markdown(results)
    assert "Chosen on dev (most dev successes, the earliest of a tie): **sft**, dev 1/4;" in markdown
    assert "| sft | 3 | 2/8 (25.0%) | 7.1%–59.1% |" in markdown
    assert "| ei-2 | None | (not finished in the budget)" in markdown
    assert "| api-a | 0/4 | 1/4 | 1/4 |" in markdown
    write_curve(tmp_path, results)
    lines = (tmp_path / "curve.csv").read_text().splitlines()
    assert lines[0] == "round,heldout_success,heldout_lo,heldout_hi,dev_success,sample_success"
    assert lines[1].startswith("0,0.2500,") and lines[2].startswith("1,0.3750,") and lines[2].endswith(",0.3125")
    assert (tmp_path / "curve.png").exists() or (tmp_path / "curve.svg").read_text().startswith("<svg")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_parts_cut_and_join_again(tmp_path):
    src = tmp_path / "src"
    (src / "tree").mkdir(parents=True)
    (src / "tree" / "a.txt").write_text("a" * 1000)
    (src / "blob").write_bytes(os.urandom(100_000))
    with tarfile.open(tmp_path / "tree.tar.xz", "w:xz") as archive:
        archive.add(src / "tree", arcname=".")
    (tmp_path / "blob.xz").write_bytes(lzma.compress((src / "blob").read_bytes(), preset=0))
    spec = {
        "meta": {"python": "3.12"},
        "items": [
            {"name": "blob", "file": str(tmp_path / "blob.xz"), "dest": "bin/blob", "mode": "755"},
            {"name": "tree", "file": str(tmp_path / "tree.tar.xz"), "dest": "tree"},
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    pack = tmp_path / "pack"
    size = (tmp_path / "blob.xz").stat().st_size + (tmp_path / "tree.tar.xz").stat().st_size
    capacity = 256 * 1024 + size // 2 + 1000  # two parts, the blob cut across them
    script = ROOT / "scripts" / "gpu" / "parts.py"
    subprocess.run(
        [sys.executable, script, "--spec", tmp_path / "spec.json", "--out", pack, "--capacity", str(capacity)],
        check=True,
        capture_output=True,
    )
    parts = sorted(pack.glob("part-*.tar"))
    assert len(parts) == 2 and all(p.stat().st_size <= capacity for p in parts)

    stage = tmp_path / "stage"
    unpack = [
        sys.executable,
        str(ROOT / "scripts" / "gpu" / "unpack.py"),
        "--pack",
        str(tmp_path / "arrived"),
        "--stage",
        str(stage),
    ]
    (tmp_path / "arrived").mkdir()
    parts[1].rename(tmp_path / "arrived" / parts[1].name)  # the second part first
    first = json.loads(subprocess.run(unpack, check=True, capture_output=True, text=True).stdout)
    assert first["ready"] is False and first["parts_missing"] == ["part-1.tar"]
    parts[0].rename(tmp_path / "arrived" / parts[0].name)
    second = json.loads(subprocess.run(unpack, check=True, capture_output=True, text=True).stdout)
    assert second["ready"] is True and sorted(second["items_ready"]) == ["blob", "tree"]
    assert (stage / "bin" / "blob").read_bytes() == (src / "blob").read_bytes()
    assert (stage / "bin" / "blob").stat().st_mode & 0o777 == 0o755
    assert (stage / "tree" / "a.txt").read_text() == "a" * 1000
    again = json.loads(subprocess.run(unpack, check=True, capture_output=True, text=True).stdout)
    assert again["ready"] is True  # nothing unpacked twice, nothing lost


def test_a_damaged_part_is_refused(tmp_path):
    (tmp_path / "blob.xz").write_bytes(lzma.compress(os.urandom(50_000), preset=0))
    spec = {"items": [{"name": "blob", "file": str(tmp_path / "blob.xz"), "dest": "blob"}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    pack = tmp_path / "pack"
    subprocess.run(
        [sys.executable, ROOT / "scripts" / "gpu" / "parts.py", "--spec", tmp_path / "spec.json", "--out", pack],
        check=True,
        capture_output=True,
    )
    part = pack / "part-1.tar"
    with tarfile.open(part) as archive:
        offset = archive.getmember("blob.xz.000").offset_data
    data = bytearray(part.read_bytes())
    data[offset + 1000] ^= 0xFF  # inside the piece
    part.write_bytes(bytes(data))
    unpack = [sys.executable, ROOT / "scripts" / "gpu" / "unpack.py", "--pack", pack, "--stage", tmp_path / "stage"]
    done = subprocess.run(unpack, capture_output=True, text=True)
    status = json.loads(done.stdout)
    assert done.returncode == 1 and status["ready"] is False and status["failures"]
    assert not (tmp_path / "stage" / "blob").exists()


@pytest.mark.parametrize("keep", ["success", "all"])
def test_select_samples_keeps_distinct_conversations(keep):
    a = {"task_id": "t", "messages": [{"role": "assistant", "content": "x"}], "server_success": True}
    b = {"task_id": "t", "messages": [{"role": "assistant", "content": "y"}], "server_success": False}
    kept = select_samples([a, dict(a), b], keep=keep)
    assert kept == ([a] if keep == "success" else [a, b])
