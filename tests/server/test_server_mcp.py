"""An MCP client from the official SDK plays a Blitz room to the end, over streamable HTTP and stdio."""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from server_kit import Person, choose

from live_server import ThreadServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ToolFailed(Exception):
    pass


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(tool, args or {})
    if result.is_error:
        raise ToolFailed(" ".join(getattr(c, "text", "") for c in result.content))
    data = result.structured_content
    assert isinstance(data, dict)
    return data.get("result", data) if set(data) == {"result"} else data


def http_client(server: ThreadServer, key: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=90)
    return Client(streamable_http_client(server.base + "/mcp", http_client=http))


async def play_blitz_to_the_end(client: Client, max_seconds: float = 240) -> dict[str, Any]:
    """What a model does: create a room with two bots, then wait for its turn and pick a legal action."""
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"list_rooms", "create_room", "join_room", "get_state", "act", "wait_for_turn"} <= tools
    assert {"read_chat", "send_chat"} <= tools
    state = await call(client, "create_room", {"mode": "blitz", "seats": 3, "bots": 2})
    assert state["started"] and state["your_seat"] is not None
    assert "[you]" in state["summary"] and "Round 1 of 25" in state["summary"]
    await call(client, "send_chat", {"text": "good luck"})
    chat = await call(client, "read_chat")
    assert [m["text"] for m in chat["messages"]] == ["good luck"]
    rng = random.Random(5)
    deadline = time.monotonic() + max_seconds
    acted = 0
    while not state["over"]:
        assert time.monotonic() < deadline, f"not over after {max_seconds}s: {state['summary']}"
        state = await call(client, "wait_for_turn", {"timeout_seconds": 20})
        if state["your_turn"] and not state["over"]:
            try:
                action = choose(state["legal_actions"], rng)
                if action["type"] == "jackpot_bet":  # one parameterised entry: the agent names its numbers
                    action = {"type": "jackpot_bet", "numbers": [rng.randint(1, 6)]}
                state = await call(client, "act", {"action": action})
                acted += 1
            except ToolFailed as exc:
                # The game may move on (a clock, a bot; even end, with a trade offer to us still
                # open) between looking and acting; look again.
                assert any(f"{code}: " in str(exc) for code in ("stale_state", "illegal_action", "game_not_running"))
    assert acted > 0
    assert state["result"] is not None and state["result"]["placements"]
    assert "Game over" in state["summary"]
    return state


async def test_an_sdk_client_plays_blitz_over_streamable_http(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    owner = people("Ada")
    key = owner.post("/api/keys", {"label": "test agent"}).json()["key"]
    async with http_client(server, key) as client:
        state = await play_blitz_to_the_end(client)
    room = httpx.get(server.base + f"/api/rooms/{state['room']}").json()
    assert room["status"] == "finished"
    [agent] = [p for p in room["players"] if p["kind"] == "human"]
    assert agent["agent"] is True and agent["name"] == "Ada"


async def test_an_sdk_client_plays_blitz_over_stdio(server: ThreadServer) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from opolyx.cli import app; app()", "mcp", "--server", server.base, "--nickname", "Stdio"],
        # The SDK starts the process with a bare environment: keep PYTHONPATH, so the code under test runs.
        env={**os.environ},
    )
    async with Client(params) as client:
        state = await play_blitz_to_the_end(client)
    room = httpx.get(server.base + f"/api/rooms/{state['room']}").json()
    [agent] = [p for p in room["players"] if p["kind"] == "human"]
    assert agent["agent"] is True and agent["name"] == "Stdio"


async def test_the_endpoint_refuses_missing_and_revoked_keys(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    owner = people("Ada")
    made = owner.post("/api/keys", {"label": "test agent"}).json()
    async with http_client(server, made["key"]) as client:
        assert (await call(client, "list_rooms"))["waiting"] == []
    assert owner.http.delete(f"/api/keys/{made['id']}").status_code == 204
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": f"Bearer {made['key']}"}, {"Authorization": f"Bearer {owner.token}"}):
        r = httpx.post(server.base + "/mcp", json=body, headers=headers)
        assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


async def test_tool_errors_carry_the_server_codes(server: ThreadServer, people: Callable[[str], Person]) -> None:
    owner = people("Ada")
    key = owner.post("/api/keys", {"label": "test agent"}).json()["key"]
    async with http_client(server, key) as client:
        with pytest.raises(ToolFailed, match=r"\bnot_in_room: you are at no table"):
            await call(client, "get_state")
        with pytest.raises(ToolFailed, match=r"\broom_not_found: "):
            await call(client, "join_room", {"code": "NOSUCH"})
        state = await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1})
        wrong = next(a for a in ({"type": "buy"}, {"type": "pay_bail"}) if a not in state["legal_actions"])
        with pytest.raises(ToolFailed, match=r"illegal_action|stale_state"):
            await call(client, "act", {"action": wrong})


def test_tool_calls_share_a_persons_frame_allowance(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(rate_ws_burst=3, rate_ws_per_second=0.001)
    owner = Person(server.base, "Ada")
    try:
        key = owner.post("/api/keys", {"label": "test agent"}).json()["key"]
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        codes = [
            httpx.post(server.base + "/mcp", json=body, headers={"Authorization": f"Bearer {key}"}).status_code
            for _ in range(4)
        ]
    finally:
        owner.close()
    assert 429 not in codes[:3] and codes[3] == 429
