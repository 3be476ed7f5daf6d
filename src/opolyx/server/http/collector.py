"""Python's full garbage collections on a timer, instead of whenever allocations say so.

A full collection scans every tracked object and holds the event loop meanwhile: with a few thousand
players connected (each socket keeps a few hundred objects of the ASGI stack alive) that is 200–350 ms
of CPU during which no room answers, and Python started one every 20–30 s because each action's game
state lives long enough to reach the old generation. Young collections still run as usual and free
almost all cyclic garbage; what survives into the old generation waits for the next timed pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

log = logging.getLogger(__name__)

# A count of young collections the old generation never reaches: Python then leaves it to us.
_NEVER = 2**31 - 1


class FullCollections:
    def __init__(self, every_seconds: float) -> None:
        self.every = every_seconds
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Take over full collections (nothing changes when the period is 0)."""
        if self.every <= 0 or self._task is not None:
            return
        self._saved = gc.get_threshold()
        gc.set_threshold(self._saved[0], self._saved[1], _NEVER)
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            began = time.thread_time()
            found = gc.collect()
            log.debug("full garbage collection: %d objects freed in %.0f ms CPU", found,
                      (time.thread_time() - began) * 1000)
