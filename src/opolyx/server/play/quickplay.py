"""Quick play: "Play now" puts a person in the queue; a ticker forms tables from it and seats them.

The rules of who sits with whom are quickplay_queue.match (pure); where tickets wait is a QueueStore
(memory, or Redis for a cluster: one queue for every process). Each tick, the process holding the queue's
turn forms the tables, claims their tickets (all or none, only if unchanged: a person who left is never
seated) and opens one public, rated room per table: the people in their seats, bots of the chosen
strength in the rest, and the game started at once. Every person is told through ``status``, which any
process answers (the placement is stored beside the queue).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from opolyx.jsontypes import JSON
from opolyx.progression.skill import Skill
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError, RoomRefused
from opolyx.server.play.quickplay_queue import (
    MODES,
    STRENGTHS,
    Table,
    Ticket,
    allowed_seats,
    match,
    position,
    seat_wishes,
)
from opolyx.server.play.quickplay_store import PENDING, QueueStore
from opolyx.server.play.rooms import RoomService, new_room_id
from opolyx.server.play.seating import already_in_game
from opolyx.storage import AGENTS, PEOPLE, AlreadySeated, NewRoom, RatingKey, SeatTaken, Store, UserRecord

log = logging.getLogger(__name__)

# Rooms one process opens at once (each: a few writes and the game's start).
SEATING_AT_ONCE = 8

IDLE = "idle"
QUEUED = "queued"
SEATED = "seated"


class QuickPlay:
    def __init__(
        self,
        rooms: RoomService,
        queue: QueueStore,
        *,
        wait_seconds: float,
        tick_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rooms = rooms
        self.queue = queue
        self.wait = wait_seconds
        self.tick_seconds = tick_seconds
        # Wall-clock seconds: tickets written by one process are judged by another.
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # Tables this process formed, for the metrics and the benchmark.
        self.formed = 0
        self._seating = asyncio.Semaphore(SEATING_AT_ONCE)
        self._ticks: set[asyncio.Task[None]] = set()

    @property
    def store(self) -> Store:
        return self.rooms.ctx.store

    # --- what people do --------------------------------------------------------------------------

    async def join(self, user: UserRecord, mode: str, seats: int | None, strength: str) -> JSON:
        """Queue ``user`` for a table of ``mode`` (``seats`` people, or None: any size)."""
        if mode not in MODES:
            raise RoomRefused(E.INVALID_REQUEST, f"unknown mode {mode!r}")
        if strength not in STRENGTHS:
            raise RoomRefused(E.INVALID_REQUEST, f"unknown bot strength {strength!r}")
        if seats is not None and seats not in allowed_seats(mode):
            raise RoomRefused(E.INVALID_SEATS, f"{mode} tables have {', '.join(map(str, allowed_seats(mode)))} seats")
        busy = await self.store.active_room_of(user.id)
        if busy is not None:
            raise already_in_game(busy)
        if await self.queue.placed(user.id) == PENDING:
            return await self.status(user)  # their table is being opened: a new ticket would come too late
        pool = AGENTS if user.agent else PEOPLE
        found = await self.store.ratings_for([RatingKey(user.id, mode, pool)])
        record = next(iter(found.values()), None)
        rating = Skill(record.mu, record.sigma).ordinal if record else Skill().ordinal
        ticket = Ticket(
            user=user.id,
            mode=mode,
            seats=seat_wishes(mode, seats),
            strength=strength,
            at=self.clock(),
            rating=rating,
            name=user.nickname,
            agent=user.agent,
        )
        await self.queue.put(ticket)
        self._wake.set()
        return await self.status(user)

    async def bots_now(self, user: UserRecord) -> JSON:
        """Start at once: the person's table forms at the next tick, bots in the seats nobody took."""
        ticket = await self.queue.get(user.id)
        if ticket is None:
            return await self.status(user)
        fresh = replace(ticket, bots_now=True)
        # Replace only the ticket we read (not one a table just claimed).
        if await self.queue.claim([ticket]):
            await self.queue.put(fresh)
        self._wake.set()
        await self.tick()
        return await self.status(user)

    async def leave(self, user: UserRecord) -> JSON:
        await self.queue.remove(user.id)
        return await self.status(user)

    async def status(self, user: UserRecord) -> JSON:
        ticket = await self.queue.get(user.id)
        if ticket is not None:
            now = self.clock()
            tickets = await self.queue.tickets()
            waited = max(0.0, now - ticket.at)
            return {
                "status": QUEUED,
                "mode": ticket.mode,
                "seats": ticket.seats[0] if len(ticket.seats) == 1 else None,
                "strength": ticket.strength,
                "waited": round(waited, 2),
                "remaining": round(max(0.0, self.wait - waited), 2),
                "wait_seconds": self.wait,
                "position": position(tickets, user.id),
                "waiting": sum(1 for t in tickets if t.mode == ticket.mode),
                "room": None,
            }
        room = await self.queue.placed(user.id)
        if room == PENDING:
            # A table was formed for them; its room opens in a moment.
            return {"status": QUEUED, "room": None, "wait_seconds": self.wait, "remaining": 0.0}
        if room is not None:
            return {"status": SEATED, "room": room, "wait_seconds": self.wait}
        return {"status": IDLE, "room": None, "wait_seconds": self.wait}

    # --- forming tables --------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        for task in (self._task, *self._ticks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        await self.queue.close()

    async def _loop(self) -> None:
        """Tick every ``tick_seconds`` (and at once when woken), each tick in a task of its own: a tick
        whose rooms are still opening must not hold up the next one (the queue's turn orders them)."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick_seconds)
            self._wake.clear()
            task = asyncio.get_running_loop().create_task(self._tick_logged())
            self._ticks.add(task)
            task.add_done_callback(self._ticks.discard)

    async def _tick_logged(self) -> None:
        try:
            await self.tick()
        except Exception:
            log.exception("quick play tick failed")

    async def tick(self) -> list[str]:
        """Form what tables the queue allows now and seat them; the ids of the rooms opened.

        The queue's turn is held only to form tables and claim their tickets; the rooms are opened after,
        several at once, so the next tick (here or in another process) need not wait for them."""
        claimed: list[Table] = []
        async with self.queue.turn() as mine:
            if not mine:
                return []
            tickets = await self.queue.tickets()
            if not tickets:
                return []
            apart = await self.store.blocked_pairs(t.user for t in tickets)
            for table in match(tickets, self.clock(), self.wait, apart):
                if await self.queue.claim(table.people):
                    claimed.append(table)
                # else someone left or changed their wishes meanwhile: the next tick decides again
        opened = await asyncio.gather(*(self._seat_one(t) for t in claimed))
        return [room_id for room_id in opened if room_id is not None]

    async def _seat_one(self, table: Table) -> str | None:
        async with self._seating:
            try:
                return await self._seat(table)
            except Exception:
                # The tickets were claimed: put them back, so these people wait on instead of being lost.
                log.exception("could not open a quick play room for %s", table.users)
                for t in table.people:
                    if await self.store.active_room_of(t.user) is None:
                        await self.queue.put(t)
                    else:
                        await self.queue.forget_placed(t.user)
                return None

    async def _seat(self, table: Table) -> str | None:
        """Open the table's room, seat its people and bots, and start the game."""
        store = self.store
        people = list(table.people)
        room = None
        creator: Ticket | None = None
        while people and room is None:
            first = people.pop(0)
            try:
                room = await store.create_room(
                    NewRoom(
                        new_room_id(), None, table.mode, table.seats, True, first.user, first.name or "?",
                        False, first.agent, rated=True,
                    )
                )
                creator = first
            except AlreadySeated:
                # Seated elsewhere since joining: the table goes on without them.
                await self.queue.forget_placed(first.user)
                continue
        if room is None or creator is None:
            return None
        seated = [creator.user]
        seat = 1
        for t in people:
            try:
                room = await store.take_seat(room.id, seat, user_id=t.user, bot=None, name=t.name or "?", agent=t.agent)
                seated.append(t.user)
                seat += 1
            except (AlreadySeated, SeatTaken):
                await self.queue.forget_placed(t.user)
                continue
        bots = 0
        while seat < table.seats:
            bots += 1
            room = await store.take_seat(
                room.id, seat, user_id=None, bot=table.strength, name=f"Bot {bots} ({table.strength})"
            )
            seat += 1
        starter = UserRecord(creator.user, creator.name, "en", None, datetime.now(UTC), agent=creator.agent)
        try:
            await self.rooms.call(room.id, "start", starter)
        except (ApiError, RoomRefused):
            log.exception("could not start quick play room %s", room.id)
        await self.queue.place(seated, room.id)
        self.formed += 1
        return room.id
