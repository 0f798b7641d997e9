"""ParaAct messages written by hand for the fixture library's tools, sent through the server's real text turns."""

from __future__ import annotations

import json

from toolenv import ToolEnvClient


def explore(query: str) -> str:
    plan = {"phase": "exploration", "slots": [{"capability": query, "query": query}]}
    return f"<think>I need a tool to {query}.</think><plan>{json.dumps(plan)}</plan><search_tool>{query}</search_tool>"


def execute(tool: str, arguments: dict | None = None) -> str:
    calls = [{"id": "c1", "tool": tool, "arguments": arguments or {}}]
    plan = {"phase": "execution", "tools": [tool], "calls": calls, "layers": [["c1"]]}
    call = '<tool_call>{"id": "c1"}</tool_call>'
    return f"<think>The search found {tool}; call it.</think><plan>{json.dumps(plan)}</plan>{call}"


def answer(text: str) -> str:
    return f"<think>The result answers the task.</think><answer>{text}</answer>"


def single_task(tasks: list[dict]) -> dict:
    """A synthesized one-call task whose tool takes no required argument (listNotes)."""
    return next(t for t in tasks if t["meta"]["kind"] == "single" and not t["meta"]["calls"][0]["arguments"])


def episode_body(task: dict) -> dict:
    members = ("id", "query", "reference_tools", "answer")
    return {"task": {k: task[k] for k in members if k in task}, "seed": task["seed"]}


def solve(client: ToolEnvClient, task: dict) -> tuple[str, list[dict]]:
    """Runs a solved episode of a single-call task; answers its id and the conversation it made."""
    episode = client.create_episode(**episode_body(task))
    messages = list(episode["messages"])
    tool = task["reference_tools"][0]
    observation = None
    for text in (explore("list notes"), execute(tool)):
        messages.append({"role": "assistant", "content": text})
        turn = client.turn(episode["id"], text)
        observation = turn["observation"]["content"]
        messages.append({"role": "user", "content": observation})
    expected = task["answer"] if isinstance(task["answer"], list) else [task["answer"]]
    final = answer(" ".join(expected))
    messages.append({"role": "assistant", "content": final})
    assert client.turn(episode["id"], final)["done"]
    return episode["id"], messages


def short_conversations(client: ToolEnvClient, tasks: list[dict], seeds: int = 3, max_turns: int = 4) -> list[dict]:
    """Short ParaAct conversations a tiny model learns in a few dozen steps: search, call in full, answer.

    Every observation is the server's own, from real text turns; each task is played under several seeds.
    """
    records = []
    for task in tasks:
        if task["meta"]["kind"] != "single":
            continue
        call = task["meta"]["calls"][0]
        for offset in range(seeds):
            body = episode_body(task)
            body["seed"] = task["seed"] + offset
            episode = client.create_episode(**body, max_turns=max_turns)
            messages = list(episode["messages"])
            tool_call = json.dumps({"id": "c1", "tool": call["tool"], "arguments": call["arguments"]})
            texts = [
                f"<think>Search.</think><search_tool>{task['query'][:40]}</search_tool>",
                f"<think>Call.</think><tool_call>{tool_call}</tool_call>",
            ]
            for text in texts:
                messages.append({"role": "assistant", "content": text})
                observation = client.turn(episode["id"], text)["observation"]["content"]
                messages.append({"role": "user", "content": observation})
            expected = task["answer"] if isinstance(task["answer"], list) else [task["answer"]]
            final = f"<think>Done.</think><answer>{' '.join(expected)}</answer>"
            messages.append({"role": "assistant", "content": final})
            client.turn(episode["id"], final)
            client.delete_episode(episode["id"])
            records.append({"messages": messages, "task_id": task["id"]})
    return records
