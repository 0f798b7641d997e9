#!/usr/bin/env python3
"""Public tool-retrieval benchmarks from the PyPI packages that ship their data, as ToolEnv task files.

`.venv/bin/python scripts/fetch-benchmarks.py [DIR]` (default `benchmarks/`, git-ignored) downloads two wheels with
pip (no dependencies, nothing installed) and writes, per benchmark, `functions.json` (OpenAI-style specs for
`toolenv library import --format openai`) and task files for `toolenv search eval --tasks`, split into a dev half
(tune on it) and a test half (look at it once per change) by a hash of the task id:

- `bfcl/`: Berkeley Function-Calling Leaderboard v4 (`bfcl-eval`, Apache-2.0), the categories with a ground truth
  and Python-typed functions; a task's references are the functions its ground truth calls, searched for among
  every function of every category (BFCL itself offers each question only its own 1-4).
- `nestful/`: NESTFUL (`nestful-wrapper`, Apache-2.0), sequences of API calls (SGD, Glaive, RapidAPI); a task's
  references are the functions of its gold sequence. Written as MCP-style tasks (the offered tools: all of them).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

BFCL = ("bfcl-eval", "2026.3.23")
NESTFUL = ("nestful-wrapper", "0.1.7")
BFCL_CATEGORIES = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
]
NESTFUL_SETS = ["executable/executable", "non-executable/non-executable-sgd", "non-executable/non-executable-glaive"]


def wheel(package: tuple[str, str], into: Path) -> zipfile.ZipFile:
    """The package's wheel, downloaded by pip from the configured index (PyPI)."""
    name, version = package
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--only-binary", ":all:", "--dest", str(into), f"{name}=={version}"],
        check=True,
    )  # fmt: skip
    prefix = name.replace("-", "_") + "-" + version
    return zipfile.ZipFile(next(into.glob(f"{prefix}-*.whl")))


def json_lines(archive: zipfile.ZipFile, member: str) -> list[dict]:
    return [json.loads(line) for line in archive.read(member).decode().splitlines() if line.strip()]


def is_test(task_id: str) -> bool:
    """Half the tasks, fixed by id: the test split."""
    return hashlib.sha256(task_id.encode()).digest()[0] % 2 == 1


def write_tasks(out: Path, tasks: list[dict], functions: dict[str, dict]) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "functions.json").write_text(json.dumps(list(functions.values()), indent=1))
    splits = {
        "dev": [t for t in tasks if not is_test(str(t["id"]))],
        "test": [t for t in tasks if is_test(str(t["id"]))],
    }
    for split, chosen in {"all": tasks, **splits}.items():
        with open(out / f"tasks-{split}.jsonl", "w") as file:
            file.writelines(json.dumps(task) + "\n" for task in chosen)
    return {"functions": len(functions), **{split: len(chosen) for split, chosen in splits.items()}}


def bfcl(archive: zipfile.ZipFile, out: Path) -> dict[str, int]:
    functions: dict[str, dict] = {}
    tasks = []
    for category in BFCL_CATEGORIES:
        truths = {
            a["id"]: a["ground_truth"]
            for a in json_lines(archive, f"bfcl_eval/data/possible_answer/BFCL_v4_{category}.json")
        }
        for entry in json_lines(archive, f"bfcl_eval/data/BFCL_v4_{category}.json"):
            for spec in entry["function"]:
                functions.setdefault(spec["name"], spec)
            tasks.append({**entry, "ground_truth": truths[entry["id"]]})
    return write_tasks(out, tasks, functions)


JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
PYTHON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}


def json_type(name: str | None) -> str:
    """NESTFUL's parameter types mix JSON Schema's with Python's and free words ("datetime"): the latter are strings."""
    name = (name or "string").lower()
    return name if name in JSON_TYPES else PYTHON_TYPES.get(name, "string")


def openai_spec(spec: dict) -> dict:
    """A NESTFUL spec (query_parameters with per-parameter `required`) as an OpenAI function spec."""
    params = spec.get("query_parameters") or {}
    return {
        "name": spec["name"],
        "description": spec.get("description", ""),
        "parameters": {
            "type": "object",
            "properties": {
                name: {"type": json_type(p.get("type")), "description": p.get("description", "")}
                for name, p in params.items()
            },
            "required": [name for name, p in params.items() if p.get("required")],
        },
    }


def nestful(archive: zipfile.ZipFile, out: Path) -> dict[str, int]:
    functions: dict[str, dict] = {}
    tasks = []
    for name in NESTFUL_SETS:
        for spec in json.loads(archive.read(f"data_v1/{name}-spec.json")):
            functions.setdefault(spec["name"], openai_spec(spec))
        for index, sample in enumerate(json.loads(archive.read(f"data_v1/{name}-data.json"))):
            # The gold sequence ends in a `var_result` pseudo-call that names no function.
            calls = [c["name"] for c in sample["output"] if c["name"] in functions]
            tasks.append({"id": f"{name.split('/')[1]}-{index}", "query": sample["input"], "references": calls})
    offered = [{"name": f["name"], "description": f["description"]} for f in functions.values()]
    mcp = [
        {"id": t["id"], "query": t["query"], "tools": offered, "reference_tools": list(dict.fromkeys(t["references"]))}
        for t in tasks
        if t["references"]
    ]
    return write_tasks(out, mcp, functions)


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "benchmarks")
    with tempfile.TemporaryDirectory() as tmp:
        report = {
            "bfcl": bfcl(wheel(BFCL, Path(tmp)), out / "bfcl"),
            "nestful": nestful(wheel(NESTFUL, Path(tmp)), out / "nestful"),
        }
    print(json.dumps({"dir": str(out.resolve()), **report}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
