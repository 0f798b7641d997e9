"""OpenEnv's own client, unchanged, on ToolEnv's episodes."""

from conftest import serving
from openenv.core import GenericEnvClient
from scripted import answer, execute, explore, single_task

from toolenv import ToolEnvClient


def test_openenv_client_plays_an_episode(server):
    task = single_task(server.tasks)
    members = {k: task[k] for k in ("id", "query", "reference_tools", "answer")}
    with GenericEnvClient(base_url=f"{server.url}/openenv").sync() as env:
        reset = env.reset(task=members, seed=task["seed"])
        assert reset.done is False and reset.reward is None
        assert reset.observation["content"] == task["query"] and reset.observation["messages"][0]["role"] == "system"
        episode_id = reset.observation["episode_id"]
        for text in (explore("list notes"), execute(task["reference_tools"][0])):
            step = env.step({"text": text})
            assert step.done is False and step.reward is None
        final = env.step({"text": answer(" ".join(task["answer"]))})
        assert final.done is True
        with ToolEnvClient(server.url) as client:
            rewards = client.rewards(episode_id)
        assert final.reward == rewards["r_traj"] and final.observation["rewards"]["r_step"] == rewards["r_step"]
        assert env.state()["step_count"] == 3


def test_a_reset_without_a_task_plays_the_servers_openenv_tasks(server, tmp_path):
    with serving(server.library, tmp_path / "c.db", "--openenv-tasks", str(server.tasks_file)) as url:
        with GenericEnvClient(base_url=f"{url}/openenv").sync() as env:
            queries = [env.reset(seed=i).observation["content"] for i in (0, 1)]
    assert queries == [server.tasks[0]["query"], server.tasks[1]["query"]]


def test_a_reset_with_no_arguments_plays_a_task_synthesized_from_the_served_library(server):
    with GenericEnvClient(base_url=f"{server.url}/openenv").sync() as env:
        reset = env.reset()
        task = env.state()["task"]
    assert reset.observation["content"] == task["query"]
    assert task["id"] and ("answer" in task or task.get("reference_tools"))
