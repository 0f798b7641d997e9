"""`python -m toolenv.loadtest CONFIG_JSON`: the async client driving many concurrent episodes' text turns.

`toolenv bench --client` runs it against a `toolenv serve` it started: per scale, N episodes are created at once,
each writes one search turn and then call turns, all N in flight together, as a trainer's rollout workers do; then
they are deleted. It prints one JSON line: turns per second and turn latency per scale.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from .client import AsyncToolEnvClient


async def _scale(config: dict[str, Any], episodes: int) -> dict[str, Any]:
    search = f"<think>Find the tool first.</think>\n<search_tool>{config['query']}</search_tool>"
    call = json.dumps({"tool": config["tool"], "arguments": config["arguments"]})
    calls = "<think>Read the record.</think>\n" + f"<tool_call>{call}</tool_call>"
    turns = int(config["turns"])
    latencies: list[float] = []
    failures: list[str] = []
    pool = {"max_connections": config["max_connections"]} if config.get("max_connections") else {}
    async with AsyncToolEnvClient(config["url"], **pool) as env:
        started = time.perf_counter()
        created = await asyncio.gather(*(env.create_episode(max_turns=turns + 1) for _ in range(episodes)))
        create_s = time.perf_counter() - started

        async def run(episode_id: str) -> None:
            for n in range(turns):
                sent = time.perf_counter()
                answer = await env.turn(episode_id, search if n == 0 else calls)
                latencies.append(time.perf_counter() - sent)
                if answer.get("rejected") and len(failures) < 3:
                    failures.append(json.dumps(answer)[:300])

        started = time.perf_counter()
        await asyncio.gather(*(run(e["id"]) for e in created))
        turns_s = time.perf_counter() - started
        await asyncio.gather(*(env.delete_episode(e["id"]) for e in created))
    latencies.sort()
    return {
        "episodes": episodes,
        "turns": episodes * turns,
        "create_s": round(create_s, 2),
        "turns_s": round(turns_s, 2),
        "turns_per_s": round(episodes * turns / turns_s, 1),
        "turn_p50_ms": round(1000 * latencies[len(latencies) // 2], 1),
        "turn_p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], 1),
        "rejected_samples": failures,
    }


async def _main(config: dict[str, Any]) -> dict[str, Any]:
    scales = [await _scale(config, n) for n in config["episodes"]]
    return {"client": "httpx", "max_connections": config.get("max_connections"), "scales": scales}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_main(json.loads(sys.argv[1])))), flush=True)
