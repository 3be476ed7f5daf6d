"""The table's chat: a message is stored before anyone sees it, like an action, so what the table saw
survives a restart; the last few are kept for the snapshots of those who connect later."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Protocol

from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ActionRefused
from opolyx.server.play.context import HubContext
from opolyx.server.play.peers import Peer
from opolyx.storage import ChatRecord, RoomRecord

log = logging.getLogger(__name__)


class ChattingTable(Protocol):
    """What the chat needs of its room's hub."""

    room: RoomRecord
    ctx: HubContext
    lock: asyncio.Lock

    def broadcast(self, payload: JSON) -> None: ...


def chat_frame(m: ChatRecord) -> JSON:
    return {"type": "chat", "name": m.name, "seat": m.seat, "spectator": m.spectator, "text": m.text, "at": m.at}


class TableChat:
    def __init__(self, table: ChattingTable) -> None:
        self.table = table
        self.recent: deque[JSON] = deque(maxlen=table.ctx.settings.chat_history)

    async def load(self) -> None:
        """The room's last messages, from the store (after a restart, or to show a finished game)."""
        table = self.table
        self.recent.clear()
        for m in await table.ctx.store.recent_chat(table.room.id, table.ctx.settings.chat_history):
            self.recent.append(chat_frame(m))

    async def post(self, conn: Peer, text: str) -> None:
        table = self.table
        text = text.strip()
        if not text:
            raise ActionRefused(E.CHAT_EMPTY, "empty message")
        limit = table.ctx.settings.chat_max_length
        if len(text) > limit:
            raise ActionRefused(E.CHAT_TOO_LONG, f"chat messages are limited to {limit} characters")
        async with table.lock:
            seat = table.room.seat_of(conn.user.id)
            message = ChatRecord(
                conn.user.nickname, seat.seat if seat else None, seat is None, text, round(time.time(), 3), conn.user.id
            )
            # Stored before anyone sees it, like an action: what the table saw survives a restart.
            try:
                await table.ctx.store.add_chat(table.room.id, message)
            except Exception as exc:
                log.exception("could not store a chat message in room %s", table.room.id)
                raise ActionRefused(E.INTERNAL, "the message could not be stored; try again") from exc
            frame = chat_frame(message)
            self.recent.append(frame)
            table.broadcast(frame)
