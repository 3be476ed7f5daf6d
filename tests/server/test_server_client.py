"""The reference client (opolyx.client) against a real server: lobby, socket, reconnect and resync."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from server_kit import choose

from live_server import ThreadServer
from opolyx.client import Client, OpolyxError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_client_reconnects_and_plays_on_to_the_end(server: ThreadServer) -> None:
    async with Client(server.base) as client:
        me = await client.start_guest("Ann")
        assert (await client.me()).id == me.id
        room = await client.create_room("blitz", 2)
        room = await client.add_bot(room.id, "normal")
        assert [p.kind for p in room.players] == ["human", "bot"]
        async with client.socket(room.id) as table:
            assert table.seat == 0 and not table.started
            await client.start(room.id)
            assert await table.wait_until(lambda: table.started, 10)
            rng = random.Random(2)
            dropped = False
            while not table.over:
                assert await table.wait_until(lambda: table.my_turn() or table.over, 30)
                if table.over:
                    break
                if not dropped and table.seq > 3:
                    # The network fails mid-game: the socket comes back and the snapshot resyncs it.
                    before = table.snapshots
                    await table.drop()
                    back = await table.wait_until(lambda b=before: table.reconnects == 1 and table.snapshots > b, 20)
                    assert back
                    assert table.connected
                    dropped = True
                    continue
                try:
                    frame = await table.act(choose(table.legal, rng))
                    assert frame["type"] == "events" and frame["seq"] <= table.seq
                except OpolyxError as exc:
                    # Acting on a view one frame old: the state moved on, the socket was lost, or the
                    # other seat's last action ended the game before this one arrived.
                    assert exc.code in ("stale_state", "connection_lost", "game_not_running"), exc
            assert dropped
            assert table.result is not None and table.result["placements"]
            # The socket asked for changes only; what it merged is the game a fresh snapshot gives whole.
            assert "?game=changes" in table.url
            merged = table.game
            assert (await table.sync())["game"] == merged
        assert (await client.room(room.id)).status == "finished"


async def test_refusals_raise_with_the_server_codes(server: ThreadServer) -> None:
    async with Client(server.base) as ann, Client(server.base) as stranger:
        with pytest.raises(OpolyxError) as info:
            await ann.create_room("blitz", 2)
        assert info.value.code == "not_authenticated" and info.value.status == 401
        await ann.start_guest("Ann")
        room = await ann.create_room("classic", 3, public=False)
        assert room.code is not None
        with pytest.raises(OpolyxError) as info:
            await ann.create_room("blitz", 2)
        assert info.value.code == "already_in_game" and info.value.room == room.id
        with pytest.raises(OpolyxError) as info:
            await ann.join("no-such-room")
        assert info.value.code == "room_not_found" and info.value.status == 404
        # A socket without a session, or to no room, is refused for good (no reconnecting).
        with pytest.raises(OpolyxError) as info:
            await stranger.socket(room.id).open()
        assert info.value.code == "not_authenticated"
        with pytest.raises(OpolyxError) as info:
            await ann.socket("no-such-room").open()
        assert info.value.code == "room_not_found"
        # A handshake the server refuses outright (another site's page) is not retried either.
        async with Client(server.base, token=ann.token, headers={"Origin": "http://evil.example"}) as page:
            with pytest.raises(OpolyxError) as info:
                await page.socket(room.id).open()
            assert info.value.code == "http_403"


async def test_chat_and_keys_through_the_client(server: ThreadServer) -> None:
    async with Client(server.base) as ann:
        await ann.start_guest("Ann")
        made = await ann.create_key("agent")
        assert [k.id for k in await ann.keys()] == [made.id]
        room = await ann.create_room("blitz", 2)
        async with Client(server.base, token=made.key) as agent:
            assert (await agent.me()).nickname == "Ann"
            async with agent.socket(room.id) as table:
                await table.say("hello")
                assert await table.wait_until(lambda: table.chat_count == 1, 10)
                assert table.chat[-1]["text"] == "hello" and table.chat[-1]["seat"] == 0
                with pytest.raises(OpolyxError) as info:
                    await table.say("x" * 301)
                assert info.value.code == "chat_too_long"
                with pytest.raises(OpolyxError) as info:
                    await table.act({"type": "roll"})
                assert info.value.code == "game_not_running"
                # Revoking the key ends its open socket too: the reconnection is refused for good.
                await ann.revoke_key(made.id)
                assert await table.wait_until(lambda: table.error is not None, 20)
                assert table.error is not None and table.error.code == "not_authenticated"
            with pytest.raises(OpolyxError) as info:
                await agent.me()
            assert info.value.code == "not_authenticated"


async def test_a_relay_can_name_the_address_it_speaks_for(start_server: Callable[..., ThreadServer]) -> None:
    """The /mcp endpoint relays each agent's room socket from loopback with X-Forwarded-For: per-address
    socket caps then count the agents apart, not as one loopback address."""
    server = start_server(max_sockets_per_address=1)
    async with Client(server.base) as ann:
        await ann.start_guest("Ann")
        room = await ann.create_room("blitz", 2)
        relayed = [Client(server.base, token=ann.token, headers={"X-Forwarded-For": f"10.0.0.{n}"}) for n in (1, 2, 1)]
        try:
            # One socket per address: two relayed addresses both get theirs, the same one twice does not.
            async with relayed[0].socket(room.id), relayed[1].socket(room.id):
                with pytest.raises(OpolyxError) as info:
                    await relayed[2].socket(room.id).open()
                assert info.value.code == "too_many_sockets"
        finally:
            for client in relayed:
                await client.close()


async def test_the_client_plays_now(server: ThreadServer) -> None:
    async with Client(server.base) as client:
        await client.start_guest("Quinn")
        queued = await client.play_now("blitz", 2, "easy")
        assert queued.status == "queued" and queued.seats == 2 and queued.remaining is not None
        assert (await client.quick_leave()).status == "idle"
        await client.play_now("blitz", 2, "easy")
        seated = await client.quick_bots_now()
        while seated.status != "seated":
            seated = await client.quick_status()
        assert seated.room is not None
        room = await client.room(seated.room)
        assert room.status == "running" and room.rated
        assert (await client.ratings()).ratings == []
