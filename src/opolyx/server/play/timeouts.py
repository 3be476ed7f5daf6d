"""When a decision's clock runs out: the room's one timer, which applies the engine's timeout action through
the hub's door, and the checkpoints that write the time left on each clock.

The deadlines themselves come from :class:`opolyx.server.play.clocks.ClockBook`; this part only wakes the
room when the next one is due.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from opolyx.jsontypes import JSON
from opolyx.progression.play import CLOCK
from opolyx.protocol.errors import ActionRefused
from opolyx.server.engine_api import GameLike
from opolyx.server.play.clocks import ClockBook
from opolyx.server.play.context import HubContext
from opolyx.storage import RUNNING, RoomRecord

log = logging.getLogger(__name__)


class ClockedTable(Protocol):
    """What the timer needs of its room's hub."""

    room: RoomRecord
    ctx: HubContext
    game: GameLike | None
    lock: asyncio.Lock
    clocks: ClockBook
    closed: bool

    async def apply(self, seat: int | None, action: JSON, *, actor: str = ...) -> None: ...


class Timeouts:
    def __init__(self, table: ClockedTable) -> None:
        self.table = table
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def arm(self) -> None:
        """Wake the room when its next clock is due (and not before)."""
        self.cancel()
        table = self.table
        if table.closed:
            return
        clock = table.clocks.next_due()
        if clock is None:
            return
        delay = max(0.0, clock.deadline - table.clocks.now())
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._spawn, self._on_timer, clock.key)

    def _spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        if self.table.closed:
            return
        task = asyncio.get_running_loop().create_task(fn(*args))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_timer(self, key: str) -> None:
        table = self.table
        async with table.lock:
            if table.game is None or table.room.status != RUNNING or table.closed:
                return
            clock = table.clocks.running.get(key)
            if clock is None:
                self.arm()
                return
            if clock.deadline > table.clocks.now() + 0.001:
                self.arm()
                return
            try:
                await table.apply(None, dict(clock.action), actor=CLOCK)
            except ActionRefused as exc:
                # The engine says nothing is due (it moved on in the meantime): forget this clock.
                log.warning("timeout %s refused in room %s: %s", key, table.room.id, exc.message)
                table.clocks.kill(key)
                self.arm()
            except Exception:
                log.exception("timeout %s failed in room %s", key, table.room.id)

    def to_checkpoint(self) -> JSON | None:
        """The clocks to write at the next checkpoint, or None when there is nothing running."""
        table = self.table
        if table.room.status == RUNNING and table.clocks.running and not table.closed:
            return table.clocks.to_store()
        return None

    async def checkpoint(self) -> None:
        """Write the time left on each clock, so a restart resumes about where a crash stopped it."""
        table = self.table
        async with table.lock:
            if table.room.status == RUNNING and table.clocks.running and not table.closed:
                await table.ctx.store.save_clocks(table.room.id, table.clocks.to_store())

    def stop(self) -> list[asyncio.Task[Any]]:
        """Cancel the timer and what it started; the tasks to wait for."""
        self.cancel()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        return tasks
