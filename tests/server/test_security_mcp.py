"""/mcp long polls, tried as an attacker would (issue 39): a flood of parked ``wait_for_turn`` calls on one
key is refused beyond a small cap while the server keeps answering others, a dropped client's wait is
released at once, and a stop does not wait for parked calls. Everything runs on loopback, bounded."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from server_kit import Person

from live_server import ThreadServer

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def tool_call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args or {}}}


def answer(r: httpx.Response) -> tuple[bool, str, dict[str, Any]]:
    """(is_error, text, structured result) of a tools/call answer."""
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    error = bool(result.get("isError"))
    data = result.get("structuredContent") or ({} if error else json.loads(text))
    return error, text, data["result"] if set(data) == {"result"} else data


def seated_key(server: ThreadServer, person: Person) -> dict[str, str]:
    """A new API key of ``person`` whose agent sits alone in a waiting room: its waits park until timeout."""
    key = person.post("/api/keys", {"label": "agent"}).json()["key"]
    auth = {**HEADERS, "Authorization": f"Bearer {key}"}
    args = {"mode": "blitz", "seats": 2, "bots": 0, "public": False, "start": False}
    error, text, _ = answer(httpx.post(server.base + "/mcp", json=tool_call("create_room", args), headers=auth))
    assert not error, text
    return auth


async def waits(server: ThreadServer, auths: list[dict[str, str]], seconds: float, client_timeout: float) -> list[Any]:
    """One wait_for_turn per entry of ``auths``, all at once; each answer, or the exception it ended with."""
    async with httpx.AsyncClient(timeout=client_timeout, limits=httpx.Limits(max_connections=100)) as http:
        body = tool_call("wait_for_turn", {"timeout_seconds": seconds})
        return await asyncio.gather(
            *(http.post(server.base + "/mcp", json=body, headers=auth) for auth in auths), return_exceptions=True
        )


async def health_while(server: ThreadServer, work: Any) -> tuple[Any, list[int]]:
    """Run ``work`` while another client asks /healthz every 0.1 s; the statuses it got."""
    statuses: list[int] = []
    task = asyncio.ensure_future(work)
    async with httpx.AsyncClient(timeout=2) as http:
        await asyncio.sleep(0.3)
        while not task.done() and len(statuses) < 20:
            statuses.append((await http.get(server.base + "/healthz")).status_code)
            await asyncio.sleep(0.1)
    return await task, statuses


def refused(results: list[Any]) -> list[str]:
    texts = []
    for r in results:
        assert isinstance(r, httpx.Response), f"a wait was not answered in time: {r!r}"
        error, text, _ = answer(r)
        if error:
            texts.append(text)
    return texts


def test_a_flood_of_waits_on_one_key_is_refused_beyond_the_cap(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    auth = seated_key(server, people("Mallory"))
    results, health = asyncio.run(health_while(server, waits(server, [auth] * 30, 2, client_timeout=15)))
    texts = refused(results)
    assert len(texts) == 28, texts
    assert all("too_many_waits: " in t and "retry_after=" in t for t in texts), texts
    assert health and set(health) == {200}
    # The parked two ended by themselves (timed out: nobody else is in the room).
    timed_out = [answer(r)[2] for r in results if not answer(r)[0]]
    assert [s["timed_out"] for s in timed_out] == [True, True]


def test_calls_queued_behind_parked_waits_are_bounded(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    """Every call of a key waits its turn behind a parked wait: those are bounded too."""
    auth = seated_key(server, people("Mallory"))

    async def queue() -> list[Any]:
        async with httpx.AsyncClient(timeout=15, limits=httpx.Limits(max_connections=100)) as http:
            await asyncio.sleep(0.5)
            body = tool_call("get_state")
            return await asyncio.gather(
                *(http.post(server.base + "/mcp", json=body, headers=auth) for _ in range(30)),
                return_exceptions=True,
            )

    async def flood() -> list[Any]:
        parked, queued = await asyncio.gather(waits(server, [auth, auth], 3, client_timeout=15), queue())
        return [*parked, *queued]

    results, health = asyncio.run(health_while(server, flood()))
    texts = refused(results)
    assert len(texts) == 28 and all("too_many_waits: " in t for t in texts), texts
    assert health and set(health) == {200}


def test_many_accounts_from_one_address_share_its_cap(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    keys = [seated_key(server, people(f"Mallory{i}")) for i in range(5)]
    results = asyncio.run(waits(server, [k for k in keys for _ in range(2)], 1, client_timeout=15))
    texts = refused(results)
    assert len(texts) == 2 and all("too_many_waits: " in t and "address" in t for t in texts), texts


def test_a_dropped_clients_wait_is_released(server: ThreadServer, people: Callable[[str], Person]) -> None:
    auth = seated_key(server, people("Mallory"))
    # Two waits of a minute, whose client gives up after one second and closes its connections.
    dropped = asyncio.run(waits(server, [auth, auth], 60, client_timeout=1))
    assert all(isinstance(r, httpx.TimeoutException) for r in dropped), dropped
    started = time.monotonic()
    error, text, _ = answer(httpx.post(server.base + "/mcp", json=tool_call("get_state"), headers=auth, timeout=10))
    assert not error, text
    [again] = asyncio.run(waits(server, [auth], 0.5, client_timeout=10))
    assert isinstance(again, httpx.Response)
    error, text, state = answer(again)
    assert not error and state["timed_out"] is True, text
    assert time.monotonic() - started < 5


def test_a_stop_does_not_wait_for_parked_waits(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server()
    persons = [Person(server.base, f"Mallory{i}") for i in range(2)]
    try:
        keys = [seated_key(server, person) for person in persons]
    finally:
        for person in persons:
            person.close()

    async def stop_later() -> float:
        await asyncio.sleep(1.0)
        started = time.monotonic()
        await asyncio.to_thread(server.__exit__, None, None, None)
        return time.monotonic() - started

    async def park_then_stop() -> float:
        _, elapsed = await asyncio.gather(waits(server, [k for k in keys for _ in range(2)], 60, 30), stop_later())
        return elapsed

    elapsed = asyncio.run(park_then_stop())
    assert not server.thread.is_alive()
    assert elapsed < 8, f"the stop took {elapsed:.1f}s"


def test_refusals_before_the_mcp_layer_stay_refusals_and_read_a_bounded_body(
    start_server: Callable[..., ThreadServer],
) -> None:
    """A revoked key's and a flooding key's tool calls are answered as tool errors (issue 47) without
    running the tool, other requests keep 401/429, and a refused request's body is read only so far."""
    server = start_server(rate_ws_burst=3, rate_ws_per_second=0.001)
    owner = Person(server.base, "Mallory")
    try:
        made = owner.post("/api/keys", {"label": "agent"}).json()
        auth = {**HEADERS, "Authorization": f"Bearer {made['key']}"}
        args = {"mode": "blitz", "seats": 2, "bots": 0, "public": True, "start": False}
        body = tool_call("create_room", args)
        answers = [httpx.post(server.base + "/mcp", json=body, headers=auth) for _ in range(4)]
        assert [r.status_code for r in answers] == [200] * 4
        error, text, _ = answer(answers[3])
        assert error and text.startswith("rate_limited: ") and "retry_after=1000 s" in text
        assert answers[3].headers["retry-after"] == "1000"
        # Refused, not run: only the first call made a room.
        assert len(httpx.get(server.base + "/api/rooms").json()["waiting"]) == 1
        tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        listing = httpx.post(server.base + "/mcp", json=tools_list, headers=auth)
        assert listing.status_code == 429 and listing.json()["code"] == "rate_limited"

        assert owner.http.delete(f"/api/keys/{made['id']}").status_code == 204
        error, text, _ = answer(httpx.post(server.base + "/mcp", json=tool_call("get_state"), headers=auth))
        assert error and text.startswith("not_authenticated: ") and "revoked" in text
        forged = {**HEADERS, "Authorization": "Bearer opx_" + "A" * 43}
        error, text, _ = answer(httpx.post(server.base + "/mcp", json=tool_call("get_state"), headers=forged))
        assert error and text.startswith("not_authenticated: ")
        # Without any key there is nobody to answer as: 401, whatever the request.
        bare = httpx.post(server.base + "/mcp", json=tool_call("get_state"), headers=HEADERS)
        assert bare.status_code == 401
        # A megabyte with a dead key is refused after a bounded read, and the server keeps answering.
        big = json.dumps(tool_call("send_chat", {"text": "x" * 1_000_000})).encode()
        r = httpx.post(server.base + "/mcp", content=big, headers=auth, timeout=30)
        assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
        assert httpx.get(server.base + "/healthz").status_code == 200
    finally:
        owner.close()
