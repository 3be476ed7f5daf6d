"""The registry of room hubs and the lobby operations that are not about one room's seats."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Sequence

from opolyx.server import errors as E
from opolyx.server.errors import ApiError
from opolyx.server.hub import HubContext, RoomHub, already_in_game
from opolyx.storage import (
    RUNNING,
    UNFINISHED,
    AlreadySeated,
    NewRoom,
    RoomRecord,
    UserRecord,
)

log = logging.getLogger(__name__)

# No 0/O, 1/I/L: codes are read aloud and typed from phones.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def new_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))


class RoomService:
    def __init__(self, ctx: HubContext) -> None:
        self.ctx = ctx
        self.hubs: dict[str, RoomHub] = {}
        self._loading = asyncio.Lock()
        self._checkpointer: asyncio.Task[None] | None = None

    async def hub(self, room_id: str) -> RoomHub | None:
        hub = self.hubs.get(room_id)
        if hub is not None:
            return hub
        async with self._loading:
            hub = self.hubs.get(room_id)
            if hub is not None:
                return hub
            room = await self.ctx.store.get_room(room_id)
            if room is None:
                return None
            hub = RoomHub(room, self.ctx)
            await hub.load()
            self.hubs[room_id] = hub
            return hub

    async def must_hub(self, room_id: str) -> RoomHub:
        hub = await self.hub(room_id)
        if hub is None:
            raise ApiError(404, E.ROOM_NOT_FOUND, f"no room {room_id}")
        return hub

    async def restore(self) -> int:
        """Bring every unfinished game back after a start: replay, resume clocks, wake the bots."""
        running = await self.ctx.store.list_rooms([RUNNING], public_only=False, limit=1_000_000)
        restored = 0
        for room in running:
            try:
                await self.hub(room.id)
                restored += 1
            except Exception:
                log.exception("could not restore room %s", room.id)
        return restored

    def start_checkpoints(self) -> None:
        self._checkpointer = asyncio.get_running_loop().create_task(self._checkpoint_loop())

    async def _checkpoint_loop(self) -> None:
        interval = self.ctx.settings.clock_checkpoint_seconds
        while True:
            await asyncio.sleep(interval)
            for hub in list(self.hubs.values()):
                try:
                    await hub.checkpoint()
                except Exception:
                    log.exception("clock checkpoint failed for room %s", hub.room.id)

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(BaseException):
                await self._checkpointer
        for hub in list(self.hubs.values()):
            with contextlib.suppress(Exception):
                await hub.checkpoint()
            await hub.close()
        self.hubs.clear()

    def forget_if_idle(self, hub: RoomHub) -> None:
        """Finished rooms nobody watches need not stay in memory; they reload on demand."""
        if hub.room.status not in UNFINISHED and not hub.conns and self.hubs.get(hub.room.id) is hub:
            del self.hubs[hub.room.id]

    # --- lobby ---------------------------------------------------------------------------------------

    async def create(self, user: UserRecord, mode: str, seats: int, public: bool) -> RoomHub:
        if mode == "team" and seats not in (4, 6):
            raise ApiError(422, E.INVALID_SEATS, "team games have 4 or 6 seats")
        busy = await self.ctx.store.active_room_of(user.id)
        if busy is not None:
            raise already_in_game(busy)
        for _ in range(5):
            room_id = secrets.token_urlsafe(8)
            code = None if public else new_code()
            try:
                room = await self.ctx.store.create_room(
                    NewRoom(room_id, code, mode, seats, public, user.id, user.nickname)
                )
                break
            except AlreadySeated as exc:
                raise already_in_game(exc.room_id) from exc
            except Exception:
                # A colliding id or code (rare): draw again.
                if await self.ctx.store.active_room_of(user.id):
                    raise
                continue
        else:
            raise ApiError(500, E.INTERNAL, "could not allocate a room")
        hub = await self.must_hub(room.id)
        return hub

    async def by_code(self, code: str) -> RoomHub:
        room = await self.ctx.store.get_room_by_code(code.strip().upper())
        if room is None:
            raise ApiError(404, E.ROOM_NOT_FOUND, "no room with that code")
        return await self.must_hub(room.id)

    async def listing(self, statuses: Sequence[str]) -> list[RoomRecord]:
        return await self.ctx.store.list_rooms(statuses, public_only=True, limit=200)
