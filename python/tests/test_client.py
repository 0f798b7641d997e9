import asyncio
import json

import pytest
from conftest import toolenv
from scripted import answer, episode_body, execute, explore, single_task, solve

from toolenv import AsyncToolEnvClient, ProblemError, ToolEnvClient


def test_text_turns_and_rewards_through_the_client(server):
    task = single_task(server.tasks)
    with ToolEnvClient(server.url) as client:
        assert client.health()["tools"] == 4
        episode_id, messages = solve(client, task)
        assert messages[0]["role"] == "system" and messages[1] == {"role": "user", "content": task["query"]}
        assert "<tools>" in messages[3]["content"] and "<tool_response>" in messages[5]["content"]
        rewards = client.rewards(episode_id)
        assert rewards["success"] is True and rewards["r_ans"] == 1.5
        assert rewards["r_step"] > 0.5 and rewards["recall"] == {"search": 1, "call": 1}
        trajectory = client.trajectory(episode_id)
        assert [t["turn"] for t in trajectory["turns"]] == [1, 2, 3]
        client.delete_episode(episode_id)
        with pytest.raises(ProblemError) as gone:
            client.trajectory(episode_id)
        assert gone.value.status == 404 and gone.value.problem["status"] == 404


def test_episode_answers_its_stop_sequences_and_refuses_bad_bodies(server):
    with ToolEnvClient(server.url) as client:
        episode = client.create_episode({"id": "t", "query": "list my notes"})
        assert episode["stop"] == ["<tool_response>", "<tools>", "<error>"]
        with pytest.raises(ProblemError) as bad:
            client.create_episode({"id": "t", "query": "q"}, k=99)
        assert bad.value.status == 400 and any(e["path"] == "/k" for e in bad.value.problem["errors"])
        rejected = client.turn(episode["id"], "no tags at all")
        assert rejected["rejected"] and "<error>" in rejected["observation"]["content"]


def test_group_advantages_match_the_batch_route(server):
    task = single_task(server.tasks)
    with ToolEnvClient(server.url) as client:
        group = client.create_group(n=3, **episode_body(task))
        first, second, third = (e["id"] for e in group["episodes"])
        for text in (explore("list notes"), execute(task["reference_tools"][0]), answer(" ".join(task["answer"]))):
            client.turn(first, text)
        client.turn(second, answer("I cannot tell."))
        client.turn(third, "broken message")
        grouped = client.group_advantages(group["id"])
        rewards = [{k: e[k] for k in ("r_step", "r_phase", "r_traj")} for e in grouped["episodes"]]
        batch = client.advantages([rewards])
        assert [e["advantage"] for e in grouped["episodes"]] == [a["advantage"] for a in batch["groups"][0]]
        assert grouped["episodes"][0]["advantage"] > 0 > grouped["episodes"][1]["advantage"]
        client.delete_group(group["id"])


def test_async_client_runs_episodes_concurrently(server):
    async def run() -> list[dict]:
        async with AsyncToolEnvClient(server.url) as client:
            episodes = await asyncio.gather(*(client.create_episode({"id": f"a{i}", "query": "q"}) for i in range(4)))
            turns = await asyncio.gather(*(client.turn(e["id"], explore("list notes")) for e in episodes))
            rewards = await asyncio.gather(*(client.rewards(e["id"], verdicts=_no_verdicts()) for e in episodes))
            await asyncio.gather(*(client.delete_episode(e["id"]) for e in episodes))
            with pytest.raises(ProblemError):
                await client.turn(episodes[0]["id"], "x")
            return [{"turn": t, "rewards": r} for t, r in zip(turns, rewards, strict=True)]

    results = asyncio.run(run())
    assert all(r["turn"]["turn"] == 1 and "<tools>" in r["turn"]["observation"]["content"] for r in results)
    assert all(r["rewards"]["answer_source"] == "missing" for r in results)


def _no_verdicts() -> dict:
    return {"quality": "NO", "faithfulness": "NO", "utility": "NO"}


def test_async_client_keeps_requests_past_its_pool_waiting_in_order(server, monkeypatch):
    """More requests than connections wait on the client's own semaphore, never in httpcore's pool queue."""
    in_flight = 0
    most = 0

    async def run() -> int:
        nonlocal in_flight, most
        async with AsyncToolEnvClient(server.url, max_connections=3) as client:
            send = client._http.request

            async def counted(*args, **kwargs):
                nonlocal in_flight, most
                in_flight += 1
                most = max(most, in_flight)
                try:
                    return await send(*args, **kwargs)
                finally:
                    in_flight -= 1

            monkeypatch.setattr(client._http, "request", counted)
            episodes = await asyncio.gather(*(client.create_episode({"id": f"p{i}", "query": "q"}) for i in range(24)))
            await asyncio.gather(*(client.delete_episode(e["id"]) for e in episodes))
            return len({e["id"] for e in episodes})

    assert asyncio.run(run()) == 24
    assert most == 3


def test_bench_client_drives_concurrent_episodes_through_the_async_client(library):
    """`toolenv bench --client` against a server of its own: every scale's turns answered, none rejected."""
    run = toolenv("bench", "--client", "--library", str(library), "--episodes", "6,12", "--turns", "2", "--json")
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert [s["episodes"] for s in report["scales"]] == [6, 12]
    assert all(s["turns"] == 2 * s["episodes"] and s["turns_per_s"] > 0 for s in report["scales"])
    assert all(s["rejected_samples"] == [] for s in report["scales"])


def _one_call(call_id: str, name: str, arguments: dict) -> dict:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_chat_turns_take_openai_messages_in_both_clients(server):
    task = single_task(server.tasks)
    tool = task["reference_tools"][0]
    with ToolEnvClient(server.url) as client:
        episode = client.create_episode(**episode_body(task), protocol="chat")
        assert [f["function"]["name"] for f in episode["functions"]] == ["search_tool", "call_tool"]
        searched = client.turn(episode["id"], message=_one_call("s1", "search_tool", {"query": "list notes"}))
        assert searched["messages"][0]["tool_call_id"] == "s1" and tool in searched["messages"][0]["content"]
        called = client.turn(episode["id"], message=_one_call("c1", "call_tool", {"tool": tool, "arguments": {}}))
        assert json.loads(called["messages"][0]["content"])["status"] == 200
        answered = client.turn(episode["id"], message={"role": "assistant", "content": " ".join(task["answer"])})
        assert answered["done"] and answered["finish"] == "answer"
        rewards = client.rewards(episode["id"])
        assert rewards["r_step"] is None and rewards["success"] is True
        with pytest.raises(ValueError):
            client.turn(episode["id"], "text", message={"role": "assistant", "content": "both"})
        client.delete_episode(episode["id"])

    async def run() -> dict:
        async with AsyncToolEnvClient(server.url) as client:
            episode = await client.create_episode(**episode_body(task), protocol="chat")
            turn = await client.turn(episode["id"], message=_one_call("s1", "search_tool", {"query": "list notes"}))
            await client.delete_episode(episode["id"])
            return turn

    assert asyncio.run(run())["messages"][0]["tool_call_id"] == "s1"
