"""The room's bot seats at play: when the engine waits for a bot, one task asks it for a move (after a
human-like pause) and submits it through the hub's door, like any other seat.

Which move a bot makes is :mod:`opolyx.server.play.botplay`'s business; this part decides when to ask,
and stops asking a seat whose moves were all refused until the game moves on.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Protocol

from opolyx.jsontypes import JSON
from opolyx.progression.play import BOT
from opolyx.protocol.errors import ActionRefused
from opolyx.server.engine_api import GameLike
from opolyx.server.play.botplay import choose_bot_action, fallback_action
from opolyx.server.play.context import HubContext
from opolyx.storage import RUNNING, RoomRecord, SeatRecord

log = logging.getLogger(__name__)


def pending_seats(snapshot: JSON) -> list[int]:
    """Seats the engine waits for, first come first: the clocked decision, then trade answers."""
    return list(dict.fromkeys(entry["seat"] for entry in snapshot["pending"]))


class BotTable(Protocol):
    """What the bot seats need of their room's hub."""

    room: RoomRecord
    ctx: HubContext
    game: GameLike | None
    snap: JSON | None
    lock: asyncio.Lock
    closed: bool

    @property
    def seq(self) -> int: ...

    def legal(self, seat: int | None) -> list[JSON]: ...

    async def apply(self, seat: int | None, action: JSON, *, actor: str = ...) -> None: ...


class BotSeats:
    def __init__(self, table: BotTable) -> None:
        self.table = table
        self.rng = random.Random()
        self._task: asyncio.Task[None] | None = None
        # (seq, seat) at which every move of that bot was refused: not asked again before the game moves on.
        self._stuck: tuple[int, int] | None = None

    def unstick(self) -> None:
        self._stuck = None

    def to_act(self) -> list[SeatRecord]:
        table = self.table
        snap = table.snap
        if snap is None or table.game is None or table.game.is_over:
            return []
        by_seat = {s.seat: s for s in table.room.seats}
        return [by_seat[s] for s in pending_seats(snap) if s in by_seat and by_seat[s].is_bot and not by_seat[s].out]

    def arm(self) -> None:
        if self.table.closed or (self._task is not None and not self._task.done()):
            return
        if not self.to_act():
            return
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        table = self.table
        settings = table.ctx.settings
        while not table.closed:
            delay = self.rng.uniform(settings.bot_delay_min, max(settings.bot_delay_min, settings.bot_delay_max))
            await asyncio.sleep(delay)
            async with table.lock:
                if table.game is None or table.room.status != RUNNING:
                    return
                acted = False
                for bot in self.to_act():
                    if self._stuck == (table.seq, bot.seat):
                        continue
                    if await self._move(bot):
                        acted = True
                        break
                if not acted:
                    return

    async def _move(self, bot: SeatRecord) -> bool:
        table = self.table
        game = table.game
        assert game is not None
        # In a worker thread so a thinking bot never stalls other rooms; the lock we hold keeps
        # everyone else from touching this game meanwhile.
        action = await asyncio.to_thread(choose_bot_action, game, bot.seat, bot.bot or "normal", self.rng)
        for attempt in range(2):
            if action is None:
                break
            try:
                await table.apply(bot.seat, action, actor=BOT)
                return True
            except ActionRefused as exc:
                log.warning("bot seat %s action %r refused: %s", bot.seat, action, exc.message)
                if attempt == 0:
                    action = fallback_action(table.legal(bot.seat), self.rng)
        # Nothing worked: wait for the state to change (or the clock to fire) before trying again.
        self._stuck = (table.seq, bot.seat)
        return False

    def stop(self) -> list[asyncio.Task[None]]:
        """Cancel the bots' task; the tasks to wait for."""
        if self._task is None:
            return []
        self._task.cancel()
        return [self._task]
