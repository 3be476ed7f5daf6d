"""The table's chat: a message is stored before anyone sees it, like an action, so what the table saw
survives a restart; the last few are kept for the snapshots of those who connect later.

What each person reads is their own: lines of people they muted or blocked (or who blocked them) never
reach their sockets, and the word filter (moderation/wordfilter.py) masks listed words unless they
switched it off. A person an operator muted cannot speak.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Protocol

from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ActionRefused
from opolyx.server.moderation import wordfilter
from opolyx.server.play.context import HubContext
from opolyx.server.play.peers import Peer
from opolyx.storage import ChatRecord, RoomRecord
from opolyx.storage.moderation import SILENCE

log = logging.getLogger(__name__)


class ChattingTable(Protocol):
    """What the chat needs of its room's hub."""

    room: RoomRecord
    ctx: HubContext
    lock: asyncio.Lock
    conns: set[Peer]

    def broadcast(self, payload: JSON) -> None: ...


def chat_frame(m: ChatRecord, text: str | None = None) -> JSON:
    return {
        "type": "chat",
        "name": m.name,
        "seat": m.seat,
        "spectator": m.spectator,
        "text": m.text if text is None else text,
        "at": m.at,
    }


class TableChat:
    def __init__(self, table: ChattingTable) -> None:
        self.table = table
        # Each line with what the word filter leaves of it (worked out once, not once per reader).
        self.lines: deque[tuple[ChatRecord, str]] = deque(maxlen=table.ctx.settings.chat_history)
        # Per reader, known from their last connect or the last line of each speaker: whose lines they
        # must not see, and whether they switched the word filter off.
        self.hidden: dict[str, set[str]] = {}
        self.unfiltered: set[str] = set()
        self.languages = wordfilter.languages_setting(table.ctx.settings.chat_filter_languages)

    @property
    def recent(self) -> list[JSON]:
        """The last lines as said (unfiltered, for everyone)."""
        return [chat_frame(m) for m, _ in self.lines]

    async def load(self) -> None:
        """The room's last messages, from the store (after a restart, or to show a finished game)."""
        table = self.table
        self.lines.clear()
        for m in await table.ctx.store.recent_chat(table.room.id, table.ctx.settings.chat_history):
            self.lines.append((m, self.filtered(m.text)))

    async def prepare(self, user_id: str) -> None:
        """Learn what ``user_id`` must not read (called before their socket gets its snapshot)."""
        store = self.table.ctx.store
        try:
            self.hidden[user_id] = await store.hidden_for(user_id)
            if await store.chat_filter_off([user_id]):
                self.unfiltered.add(user_id)
            else:
                self.unfiltered.discard(user_id)
        except Exception:
            log.exception("could not read the chat preferences of %s", user_id)

    def filtered(self, text: str) -> str:
        return wordfilter.clean(text, self.languages) if self.languages else text

    def for_reader(self, reader: str) -> list[JSON]:
        """The recent lines ``reader`` may see, as they see them (a snapshot's ``chat``)."""
        hidden = self.hidden.get(reader, set())
        raw = reader in self.unfiltered
        return [chat_frame(m, m.text if raw else clean) for m, clean in self.lines if m.user_id not in hidden]

    def forget(self, at: float, text: str) -> bool:
        """An operator removed the line said at ``at``: it now says ``text`` in what later snapshots carry."""
        changed = False
        for i, (m, _) in enumerate(self.lines):
            if abs(m.at - at) < 0.0005:
                self.lines[i] = (ChatRecord(m.name, m.seat, m.spectator, text, m.at, m.user_id), text)
                changed = True
        return changed

    async def post(self, conn: Peer, text: str) -> None:
        table = self.table
        text = text.strip()
        if not text:
            raise ActionRefused(E.CHAT_EMPTY, "empty message")
        limit = table.ctx.settings.chat_max_length
        if len(text) > limit:
            raise ActionRefused(E.CHAT_TOO_LONG, f"chat messages are limited to {limit} characters")
        store = table.ctx.store
        if await store.active_sanction(SILENCE, user_id=conn.user.id, address=conn.address) is not None:
            raise ActionRefused(E.CHAT_MUTED, "an operator muted you for a while; you cannot chat")
        async with table.lock:
            seat = table.room.seat_of(conn.user.id)
            message = ChatRecord(
                conn.user.nickname, seat.seat if seat else None, seat is None, text, round(time.time(), 3), conn.user.id
            )
            # Stored before anyone sees it, like an action: what the table saw survives a restart.
            try:
                await store.add_chat(table.room.id, message)
            except Exception as exc:
                log.exception("could not store a chat message in room %s", table.room.id)
                raise ActionRefused(E.INTERNAL, "the message could not be stored; try again") from exc
            clean = self.filtered(text)
            self.lines.append((message, clean))
            readers = {c.user.id for c in table.conns}
            try:
                # Asked afresh for every line: a block made a moment ago holds at once, on every process.
                away = await store.hidden_from(readers, conn.user.id)
            except Exception:
                log.exception("could not read who must not see %s", conn.user.id)
                away = {r for r in readers if conn.user.id in self.hidden.get(r, set())}
            for reader in readers:
                mine = self.hidden.setdefault(reader, set())
                if reader in away:
                    mine.add(conn.user.id)
                else:
                    mine.discard(conn.user.id)
            frames = {False: chat_frame(message, clean), True: chat_frame(message)}
            for peer in list(table.conns):
                reader = peer.user.id
                if reader not in away:
                    peer.send(frames[reader in self.unfiltered])
