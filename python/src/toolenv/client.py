"""HTTP clients of a ToolEnv server: episodes, turns (text, or OpenAI messages in `chat` episodes), groups, rewards
and advantages.

Both clients speak the same routes; every non-2xx answer raises ProblemError with the server's problem+json body.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from toolenv import wire

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 120.0
# Connections of the async client's pool, and so its requests in flight.
DEFAULT_CONNECTIONS = 100

Json = dict[str, Any]

# Chat episodes as the engines play them: their tool lists are fixed (TRL's environment methods, verl's tool
# config), so the server offers search_tool and call_tool alone and its prompt says found tools go through call_tool.
ENGINE_CHAT: Json = {"protocol": "chat", "native_tools": False}


class ProblemError(Exception):
    """A ToolEnv answer that was not 2xx; `problem` is its RFC 7807 body (or a stand-in when it had none)."""

    def __init__(self, status: int, problem: Json, method: str, url: str) -> None:
        self.status = status
        self.problem = problem
        detail = problem.get("detail") or problem.get("title") or ""
        super().__init__(f"{method} {url}: {status} {detail}".rstrip())


def resolve_url(given: str | None = None) -> str:
    """The server a component talks to: the URL it was given, else TOOLENV_URL."""
    url = given or os.environ.get("TOOLENV_URL")
    if not url:
        raise ValueError("no ToolEnv server: set TOOLENV_URL or pass its URL")
    return url


def _headers(api_key: str | None) -> dict[str, str]:
    key = api_key if api_key is not None else os.environ.get("TOOLENV_API_KEY")
    return {"authorization": f"Bearer {key}"} if key else {}


def _answer(response: httpx.Response) -> Any:
    if response.is_success:
        return response.json()
    try:
        body = response.json()
        problem = body if isinstance(body, dict) else {"detail": str(body)}
    except ValueError:
        problem = {"title": response.reason_phrase, "detail": response.text[:500]}
    raise ProblemError(response.status_code, problem, response.request.method, str(response.request.url))


def _without_none(body: Json) -> Json:
    return {k: v for k, v in body.items() if v is not None}


def _turn_body(text: str | None, message: Json | None, state: bool) -> Json:
    if (text is None) == (message is None):
        raise ValueError("a turn is either text or a message: pass exactly one")
    body: Json = {"text": text} if message is None else {"message": message}
    return {**body, **({"state": True} if state else {})}


class ToolEnvClient:
    """Blocking client; `with ToolEnvClient(url) as env:` closes its connections."""

    def __init__(self, base_url: str = DEFAULT_URL, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url, headers=_headers(api_key), timeout=timeout)

    def __enter__(self) -> ToolEnvClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def health(self) -> Json:
        return _answer(self._http.get("/healthz"))

    def create_episode(
        self, task: Json | None = None, *, seed: int | None = None, **options: Any
    ) -> wire.CreatedEpisode:
        """`POST /v1/episodes`: the summary with `messages` (system prompt, task query) and `stop`; a `chat` episode
        (`protocol="chat"`) also answers its `functions`, OpenAI `tools` to hand the model."""
        return _answer(self._http.post("/v1/episodes", json=_without_none({"task": task, "seed": seed, **options})))

    def turn(
        self, episode_id: str, text: str | None = None, *, message: Json | None = None, state: bool = False
    ) -> wire.TurnResult:
        """`POST /v1/episodes/{id}/turns`: the assistant message in (the raw `text`, or in a `chat` episode an OpenAI
        assistant `message` with its `tool_calls`), the next observation out."""
        return _answer(self._http.post(f"/v1/episodes/{episode_id}/turns", json=_turn_body(text, message, state)))

    def step(self, episode_id: str, actions: list[Json]) -> wire.StepResult:
        return _answer(self._http.post(f"/v1/episodes/{episode_id}/step", json={"actions": actions}))

    def trajectory(self, episode_id: str) -> wire.Trajectory:
        return _answer(self._http.get(f"/v1/episodes/{episode_id}"))

    def delete_episode(self, episode_id: str) -> wire.EpisodeSummary:
        return _answer(self._http.delete(f"/v1/episodes/{episode_id}"))

    def rewards(
        self, episode_id: str, *, verdicts: Json | None = None, judge: str | bool | None = None
    ) -> wire.Rewards:
        """The episode's R_step, R_phase, R_traj, R_ans and their parts, as the server computes them."""
        body = _without_none({"verdicts": verdicts, "judge": judge})
        if not body:
            return _answer(self._http.get(f"/v1/episodes/{episode_id}/rewards"))
        return _answer(self._http.post(f"/v1/episodes/{episode_id}/rewards", json=body))

    def create_group(self, task: Json, n: int, *, seed: int | None = None, **options: Any) -> wire.GroupSummary:
        """`POST /v1/groups`: n episodes of one task and one seed (one GRPO group)."""
        body = _without_none({"task": task, "n": n, "seed": seed, **options})
        return _answer(self._http.post("/v1/groups", json=body))

    def group(self, group_id: str) -> wire.GroupSummary:
        return _answer(self._http.get(f"/v1/groups/{group_id}"))

    def delete_group(self, group_id: str) -> wire.GroupSummary:
        return _answer(self._http.delete(f"/v1/groups/{group_id}"))

    def group_advantages(self, group_id: str, *, mode: str | None = None) -> wire.GroupAdvantages:
        params = {"mode": mode} if mode else None
        return _answer(self._http.get(f"/v1/groups/{group_id}/advantages", params=params))

    def advantages(
        self, groups: list[list[Json]], *, mode: str | None = None, weights: Json | None = None
    ) -> wire.AdvantagesResult:
        """`POST /v1/advantages`: groups of `{r_step, r_phase, r_traj}` in, their advantages (Eq. 7) out."""
        body = _without_none({"groups": groups, "mode": mode, "lambda": weights})
        return _answer(self._http.post("/v1/advantages", json=body))


class AsyncToolEnvClient:
    """The same routes for asyncio code (verl's agent loops, concurrent rollouts)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_CONNECTIONS,
    ):
        self.base_url = base_url.rstrip("/")
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        headers = _headers(api_key)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout, limits=limits)
        # Requests past the pool's size wait here, not in httpcore's pool queue: it rescans every waiting request
        # whenever a connection frees (1,024 episode creations took 27.5 s through it, 6.5 s this way; 4,096 timed out).
        self._slots = asyncio.Semaphore(max_connections)

    async def _send(self, method: str, path: str, **options: Any) -> Any:
        async with self._slots:
            response = await self._http.request(method, path, **options)
        return _answer(response)

    async def __aenter__(self) -> AsyncToolEnvClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def health(self) -> Json:
        return await self._send("GET", "/healthz")

    async def create_episode(
        self, task: Json | None = None, *, seed: int | None = None, **options: Any
    ) -> wire.CreatedEpisode:
        body = _without_none({"task": task, "seed": seed, **options})
        return await self._send("POST", "/v1/episodes", json=body)

    async def turn(
        self, episode_id: str, text: str | None = None, *, message: Json | None = None, state: bool = False
    ) -> wire.TurnResult:
        return await self._send("POST", f"/v1/episodes/{episode_id}/turns", json=_turn_body(text, message, state))

    async def step(self, episode_id: str, actions: list[Json]) -> wire.StepResult:
        return await self._send("POST", f"/v1/episodes/{episode_id}/step", json={"actions": actions})

    async def trajectory(self, episode_id: str) -> wire.Trajectory:
        return await self._send("GET", f"/v1/episodes/{episode_id}")

    async def delete_episode(self, episode_id: str) -> wire.EpisodeSummary:
        return await self._send("DELETE", f"/v1/episodes/{episode_id}")

    async def rewards(
        self, episode_id: str, *, verdicts: Json | None = None, judge: str | bool | None = None
    ) -> wire.Rewards:
        body = _without_none({"verdicts": verdicts, "judge": judge})
        if not body:
            return await self._send("GET", f"/v1/episodes/{episode_id}/rewards")
        return await self._send("POST", f"/v1/episodes/{episode_id}/rewards", json=body)

    async def create_group(self, task: Json, n: int, *, seed: int | None = None, **options: Any) -> wire.GroupSummary:
        body = _without_none({"task": task, "n": n, "seed": seed, **options})
        return await self._send("POST", "/v1/groups", json=body)

    async def group(self, group_id: str) -> wire.GroupSummary:
        return await self._send("GET", f"/v1/groups/{group_id}")

    async def delete_group(self, group_id: str) -> wire.GroupSummary:
        return await self._send("DELETE", f"/v1/groups/{group_id}")

    async def group_advantages(self, group_id: str, *, mode: str | None = None) -> wire.GroupAdvantages:
        params = {"mode": mode} if mode else None
        return await self._send("GET", f"/v1/groups/{group_id}/advantages", params=params)

    async def advantages(
        self, groups: list[list[Json]], *, mode: str | None = None, weights: Json | None = None
    ) -> wire.AdvantagesResult:
        body = _without_none({"groups": groups, "mode": mode, "lambda": weights})
        return await self._send("POST", "/v1/advantages", json=body)
