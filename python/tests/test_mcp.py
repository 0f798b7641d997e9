"""ToolEnv's /mcp through the official MCP Python SDK, in both eras: 2026-07-28 (stateless, the episode named per
request) and the 2025-11-25 session that opens its own episode."""

import asyncio

import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from toolenv import ProblemError, ToolEnvClient


def new_episode(url: str) -> str:
    with ToolEnvClient(url) as rest:
        return rest.create_episode(seed=7)["id"]


def steps(url: str, episode: str) -> list[str]:
    with ToolEnvClient(url) as rest:
        return [step["actions"][0]["type"] for step in rest.trajectory(episode)["steps"]]


def test_auto_mode_discovers_2026_and_records_into_the_url_episode(server):
    episode = new_episode(server.url)

    async def run() -> None:
        async with Client(f"{server.url}/mcp?episode={episode}") as client:
            assert client.protocol_version == "2026-07-28"
            assert client.session.initialize_result is None
            tools = await client.list_tools()
            assert [tool.name for tool in tools.tools] == ["search_tool", "call_tool"]
            search = await client.call_tool("search_tool", {"query": "list my notes", "k": 1})
            assert not search.is_error and search.meta["toolenv/episode"] == episode
            tool = search.structured_content["results"][0]["id"]
            call = await client.call_tool("call_tool", {"tool": tool, "arguments": {}})
            assert call.meta["toolenv/step"] == 2
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            assert unknown.value.error.code == -32602

    asyncio.run(run())
    assert steps(server.url, episode) == ["search_tool", "tool_call"]


def test_pinned_2026_names_the_episode_by_header(server):
    episode = new_episode(server.url)

    async def run() -> None:
        http = create_mcp_http_client(headers={"x-toolenv-episode": episode})
        transport = streamable_http_client(f"{server.url}/mcp", http_client=http)
        async with Client(transport, mode="2026-07-28") as client:
            result = await client.call_tool("search_tool", {"query": "create a note"})
            assert result.meta["toolenv/episode"] == episode

    asyncio.run(run())
    assert steps(server.url, episode) == ["search_tool"]


def test_legacy_mode_opens_a_session_and_its_episode_which_closing_ends(server):
    async def run() -> str:
        async with Client(f"{server.url}/mcp?seed=7", mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert client.session.initialize_result is not None
            result = await client.call_tool("search_tool", {"query": "create a note"})
            assert not result.is_error
            episode = result.meta["toolenv/episode"]
            assert steps(server.url, episode) == ["search_tool"]
            return episode

    episode = asyncio.run(run())
    with ToolEnvClient(server.url) as rest, pytest.raises(ProblemError) as gone:
        rest.trajectory(episode)
    assert gone.value.status == 404
