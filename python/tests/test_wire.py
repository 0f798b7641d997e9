"""The package's typed records (toolenv.wire) are the schemas' shapes, and the server's answers fit them.

wire.py is generated from schemas/ (scripts/wire-types-python); pydantic reads each TypedDict as a validator that
refuses missing, mistyped and unknown members, so every answer of a real run below is checked member by member.
"""

import subprocess

import httpx
import pytest
from conftest import ROOT
from pydantic import TypeAdapter, ValidationError
from scripted import answer, episode_body, execute, explore, single_task

from toolenv import ToolEnvClient, wire


def check(shape: object, value: dict) -> None:
    TypeAdapter(shape).validate_python(value, strict=True)


def test_wire_py_is_what_the_schemas_give():
    run = subprocess.run([str(ROOT / "scripts" / "wire-types-python"), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_a_run_s_answers_fit_the_typed_records(server):
    task = single_task(server.tasks)
    with ToolEnvClient(server.url) as client:
        created = client.create_episode(**episode_body(task))
        check(wire.CreatedEpisode, created)
        for text in (explore("list notes"), execute(task["reference_tools"][0]), "no tags at all"):
            check(wire.TurnResult, client.turn(created["id"], text))
        check(wire.TurnResult, client.turn(created["id"], answer(" ".join(task["answer"]))))
        check(wire.Rewards, client.rewards(created["id"]))
        check(
            wire.Rewards,
            client.rewards(created["id"], verdicts={"quality": "yes", "faithfulness": "YES", "utility": "no"}),
        )
        check(wire.Trajectory, client.trajectory(created["id"]))
        check(wire.EpisodeSummary, client.delete_episode(created["id"]))

        stepped = client.create_episode({"id": "s", "query": "list my notes"})
        step = client.step(stepped["id"], [{"type": "search_tool", "query": "list notes"}])
        check(wire.StepResult, step)
        tool = step["observations"][0]["results"][0]["id"]
        check(wire.StepResult, client.step(stepped["id"], [{"type": "tool_call", "tool": tool, "arguments": {}}]))
        check(wire.Trajectory, client.trajectory(stepped["id"]))

        group = client.create_group(n=2, **episode_body(task))
        check(wire.GroupSummary, group)
        for episode in group["episodes"]:
            client.turn(episode["id"], answer("I cannot tell."))
        advantages = client.group_advantages(group["id"])
        check(wire.GroupAdvantages, advantages)
        rewards = [{k: e[k] for k in ("r_step", "r_phase", "r_traj")} for e in advantages["episodes"]]
        check(wire.AdvantagesResult, client.advantages([rewards]))
        check(wire.GroupSummary, client.delete_group(group["id"]))


def test_the_records_refuse_what_the_schemas_refuse():
    task = {"id": "t", "query": "q", "answer": ["x"]}
    check(wire.EpisodeTask, task)
    for wrong in ({**task, "query": 3}, {**task, "unknown": 1}, {"id": "t"}, {**task, "answer": [1]}):
        with pytest.raises(ValidationError):
            check(wire.EpisodeTask, wrong)


def test_the_server_s_own_bodies_fit_their_records(server):
    page = httpx.get(f"{server.url}/v1/tools", params={"limit": 2}).json()
    check(wire.ToolPage, page)
    check(wire.Tool, httpx.get(f"{server.url}/v1/tools/{page['tools'][0]['id']}").json())
    check(wire.Health, httpx.get(f"{server.url}/healthz").json())


def test_the_tool_record_keeps_its_name():
    # A shape that takes a definition's name (an anonymous item named after its member) would make it Tool2.
    assert {"id", "parameters", "examples", "origin"} <= set(wire.Tool.__annotations__)
    assert not hasattr(wire, "Tool2")
