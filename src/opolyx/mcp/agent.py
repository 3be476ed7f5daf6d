"""One agent at the table: the MCP tools' logic, on top of the reference client (``opolyx.client``).

Everything an agent does goes through the public protocol with its own credentials, so it plays under
the same clocks, rate limits and visibility as a person in the same seat; nothing here reaches into
the server. The answers are small JSON-ready dicts meant to be read by a model.
"""

from __future__ import annotations

import asyncio
import contextlib

from opolyx.client import Client, OpolyxError, RoomSocket
from opolyx.engine.vocabulary import Mode
from opolyx.jsontypes import JSON
from opolyx.mcp.summary import summarize
from opolyx.protocol.models import RoomOut

# wait_for_turn never blocks longer than this, whatever the model asks for.
MAX_WAIT_SECONDS = 60.0


def room_brief(room: RoomOut) -> JSON:
    """A room in a few fields: enough to choose one to join."""
    return {
        "id": room.id,
        "mode": room.mode,
        "status": room.status,
        "seats": room.seats,
        "players": [
            {"seat": p.seat, "name": p.name, "kind": "agent" if p.agent else p.kind} for p in room.players
        ],
        "code": room.code,
    }


class AgentPlayer:
    """An identity (API key or guest session) and at most one room socket at a time."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.table: RoomSocket | None = None
        self.room_id: str | None = None
        # One tool call at a time per agent: a model's parallel calls must not interleave on one seat.
        self.lock = asyncio.Lock()

    async def close(self) -> None:
        if self.table is not None:
            await self.table.close()
            self.table = None
        await self.client.close()

    # --- rooms ---------------------------------------------------------------------------------------

    async def list_rooms(self) -> JSON:
        listing = await self.client.rooms()
        return {
            "waiting": [room_brief(r) for r in listing.waiting],
            "running": [room_brief(r) for r in listing.running],
        }

    async def create_room(
        self, mode: Mode, seats: int, bots: int, bot_strength: str, public: bool, start: bool
    ) -> JSON:
        if not 0 <= bots < seats:
            raise OpolyxError("invalid_request", f"bots must be between 0 and {seats - 1} for {seats} seats")
        room = await self.client.create_room(mode, seats, public=public)
        for _ in range(bots):
            room = await self.client.add_bot(room.id, bot_strength)
        await self._sit(room.id)
        if start:
            await self.client.start(room.id)
            await self._until_started()
        return self.state()

    async def join_room(self, code: str | None, room_id: str | None) -> JSON:
        if code:
            room = await self.client.join_code(code)
        elif room_id:
            room = await self.client.join(room_id)
        else:
            raise OpolyxError("invalid_request", "give the room's join code or its id")
        await self._sit(room.id)
        return self.state()

    async def start_game(self) -> JSON:
        table = self._table()
        assert self.room_id is not None
        await self.client.start(self.room_id)
        await self._until_started()
        return self.state(table)

    async def leave_room(self) -> JSON:
        self._table()
        assert self.room_id is not None
        room = await self.client.leave(self.room_id)
        await self._stand_up()
        return {"left": room.id, "status": room.status}

    async def _sit(self, room_id: str) -> None:
        if self.room_id != room_id:
            await self._stand_up()
            table = self.client.socket(room_id)
            await table.open()
            self.table, self.room_id = table, room_id

    async def _stand_up(self) -> None:
        if self.table is not None:
            with contextlib.suppress(Exception):
                await self.table.close()
        self.table, self.room_id = None, None

    async def _until_started(self) -> None:
        table = self._table()
        await table.wait_until(lambda: table.started, 10)

    def _table(self) -> RoomSocket:
        if self.table is None:
            raise OpolyxError("not_in_room", "you are at no table: create a room or join one first")
        if self.table.error is not None:
            raise self.table.error
        return self.table

    # --- the game ------------------------------------------------------------------------------------

    def state(self, table: RoomSocket | None = None) -> JSON:
        table = table or self._table()
        return {
            "summary": summarize(table.room, table.you, table.game, table.deadlines, list(table.log)),
            "room": table.room["id"] if table.room else None,
            "your_seat": table.seat,
            "your_turn": table.my_turn(),
            "started": table.started,
            "over": table.over,
            "result": table.result,
            "seq": table.seq,
            "legal_actions": table.legal,
        }

    async def act(self, action: JSON) -> JSON:
        table = self._table()
        await table.act(action)
        return self.state(table)

    async def wait_for_turn(self, timeout_seconds: float) -> JSON:
        table = self._table()
        limit = max(0.0, min(float(timeout_seconds), MAX_WAIT_SECONDS))
        done = await table.wait_until(lambda: table.my_turn() or table.over or table.error is not None, limit)
        state = self.state(table)
        state["timed_out"] = not done
        return state

    # --- chat ----------------------------------------------------------------------------------------

    def read_chat(self, since: int) -> JSON:
        table = self._table()
        messages = [
            {"number": m["number"], "name": m["name"], "seat": m["seat"], "text": m["text"]}
            for m in table.chat
            if m["number"] > since
        ]
        return {"messages": messages, "last": table.chat_count}

    async def send_chat(self, text: str) -> JSON:
        table = self._table()
        await table.say(text)
        return {"sent": True}
