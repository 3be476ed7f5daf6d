"""A request refused for coming too fast is answered like any other, with its ``ref``; the reference client
waits and sends it again instead of waiting out its timeout."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from server_kit import Person

from live_server import ThreadServer
from opolyx.client import Client


def test_every_refused_frame_is_answered_with_its_ref(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_ws_burst=3, rate_ws_per_second=0.001)
    ann = Person(srv.base, "Ann")
    try:
        room = ann.create()
        ann.connect(room["id"])
        ann.recv_until("snapshot")
        for ref in range(6):
            ann.send({"type": "ping", "ref": ref})
        answers = {}
        while len(answers) < 6:
            frame = ann.recv(timeout=10)
            if frame["type"] in ("pong", "error"):
                answers[frame["ref"]] = frame.get("code", "pong")
        assert answers == {0: "pong", 1: "pong", 2: "pong", 3: "rate_limited", 4: "rate_limited",
                           5: "rate_limited"}
    finally:
        ann.close()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_client_backs_off_when_rate_limited(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_ws_burst=2, rate_ws_per_second=4)
    async with Client(srv.base) as client:
        await client.start_guest("Ann")
        room = await client.create_room("blitz", 2)
        async with client.socket(room.id) as table:
            answers = await asyncio.wait_for(
                asyncio.gather(*(table.request({"type": "ping"}, timeout=15) for _ in range(8))), 20
            )
            assert [a["type"] for a in answers] == ["pong"] * 8
            assert table.connected
