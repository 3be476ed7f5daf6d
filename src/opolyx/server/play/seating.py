"""The lobby's operations on one room: taking and leaving seats, seating and removing bots, entering a
private room by its code, choosing a side in a Team room, the creator's house rules and shuffle, and
starting the game.

They refuse with :class:`opolyx.protocol.errors.RoomRefused` (a code and a message); the HTTP edge decides
the status. Each takes the room's lock, so they are ordered with the game's actions.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Protocol

from opolyx.engine.teams import side_of_seat
from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ActionRefused, RoomRefused
from opolyx.rules import house
from opolyx.server.engine_api import GameLike
from opolyx.server.play import seat_colours, seat_perks, team_choice
from opolyx.server.play.context import HubContext
from opolyx.storage import RUNNING, WAITING, AlreadySeated, RoomRecord, SeatRecord, SeatTaken, UserRecord


def already_in_game(room_id: str | None) -> RoomRefused:
    return RoomRefused(
        E.ALREADY_IN_GAME,
        "you already sit in an unfinished game; finish it, resign or leave it first",
        room=room_id,
    )


class SeatedTable(Protocol):
    """What the lobby's operations need of their room's hub."""

    room: RoomRecord
    ctx: HubContext
    lock: asyncio.Lock
    game: GameLike | None
    admitted: set[str]
    touched: float
    colours: dict[str, int]

    def may_watch(self, user_id: str | None) -> bool: ...

    def broadcast_room(self) -> None: ...

    async def reload_room(self) -> None: ...

    async def apply(self, seat: int | None, action: JSON) -> None: ...

    async def take_over(self, seat: SeatRecord) -> None: ...

    async def begin(self, game: GameLike) -> None: ...


class Seating:
    def __init__(self, table: SeatedTable) -> None:
        self.table = table

    def enter(self, user: UserRecord, code: str) -> None:
        """(Lock not held.) Checked before ``join``: the code of a private room admits its holder."""
        room = self.table.room
        if room.code is None or not secrets.compare_digest(room.code.encode(), code.encode()):
            raise RoomRefused(E.ROOM_NOT_FOUND, "no room with that code")
        self.table.admitted.add(user.id)

    async def join(self, user: UserRecord, team: int | None = None, side_of: str | None = None) -> None:
        """Take the first free seat; in a Team room ``team`` asks for a seat on that side (an invite link
        can carry it, so friends who follow the same link sit together), and ``side_of`` (a friend's
        invitation) the first free seat on that person's side if there is one."""
        table = self.table
        if not table.may_watch(user.id):
            raise RoomRefused(E.ROOM_NOT_FOUND, f"no room {table.room.id}")
        async with table.lock:
            table.touched = time.monotonic()
            room = table.room
            if room.status != WAITING:
                raise RoomRefused(E.ALREADY_STARTED, "the game has already started")
            if room.seat_of(user.id) is not None:
                return
            taken = {s.seat for s in room.seats}
            free = [i for i in range(room.seat_count) if i not in taken]
            if not free:
                raise RoomRefused(E.ROOM_FULL, "every seat is taken")
            if team is None and side_of is not None and room.mode == "team":
                mate = room.seat_of(side_of)
                if mate is not None:
                    free = [i for i in free if side_of_seat(i) == side_of_seat(mate.seat)] or free
            if team is not None:
                free = team_choice.free_seats_of_side(room, team)
            try:
                table.room = await table.ctx.store.take_seat(
                    room.id, free[0], user_id=user.id, bot=None, name=user.nickname, agent=user.agent
                )
            except AlreadySeated as exc:
                raise already_in_game(exc.room_id) from exc
            except SeatTaken as exc:
                raise RoomRefused(E.ROOM_FULL, "that seat was just taken; try again") from exc
            table.broadcast_room()

    async def add_bot(self, user: UserRecord, strength: str) -> None:
        table = self.table
        async with table.lock:
            room = table.room
            self._creator_waiting(user)
            taken = {s.seat for s in room.seats}
            free = [i for i in range(room.seat_count) if i not in taken]
            if not free:
                raise RoomRefused(E.ROOM_FULL, "every seat is taken")
            bots = sum(1 for s in room.seats if s.is_bot)
            name = f"Bot {bots + 1} ({strength})"
            try:
                table.room = await table.ctx.store.take_seat(room.id, free[0], user_id=None, bot=strength, name=name)
            except SeatTaken as exc:
                raise RoomRefused(E.ROOM_FULL, "that seat was just taken; try again") from exc
            table.broadcast_room()

    async def remove_bot(self, user: UserRecord, seat: int) -> None:
        table = self.table
        async with table.lock:
            self._creator_waiting(user)
            target = next((s for s in table.room.seats if s.seat == seat), None)
            if target is None or not target.is_bot:
                raise RoomRefused(E.NOT_A_BOT, f"seat {seat} holds no bot")
            table.room = await table.ctx.store.free_seat(table.room.id, seat)
            table.broadcast_room()

    async def choose_team(self, user: UserRecord, team: int) -> None:
        """Move the caller (only ever the caller) to a free seat on ``team``'s side."""
        table = self.table
        async with table.lock:
            table.touched = time.monotonic()
            room = table.room
            if room.status != WAITING:
                raise RoomRefused(E.ALREADY_STARTED, "the game has already started")
            seats = team_choice.moved_to_side(room, user.id, team)
            if seats is not None:
                table.room = await table.ctx.store.arrange_seats(room.id, seats)
                table.broadcast_room()

    async def choose_colour(self, user: UserRecord, colour: int) -> None:
        """Before the start, the caller picks a seat colour; one picked by another person is refused
        (``colour_taken``), so colours stay unique per table (seat_colours.py)."""
        table = self.table
        async with table.lock:
            table.touched = time.monotonic()
            room = table.room
            if room.status != WAITING:
                raise RoomRefused(E.ALREADY_STARTED, "the game has already started")
            seat_colours.check_pick(room.seats, table.colours, user.id, colour)
            table.colours[user.id] = colour
            table.broadcast_room()

    async def shuffle_teams(self, user: UserRecord) -> None:
        """Creator only: deal everyone seated (people and bots) to random seats, so random sides."""
        table = self.table
        async with table.lock:
            self._creator_waiting(user)
            table.room = await table.ctx.store.arrange_seats(table.room.id, team_choice.shuffled(table.room))
            table.broadcast_room()

    async def set_house_rules(self, user: UserRecord, overrides: JSON | None) -> None:
        """Creator only, before the start: replace the room's house rules (checked; a refusal changes
        nothing). Everyone in the room sees the new changes at once."""
        table = self.table
        async with table.lock:
            self._creator_waiting(user)
            room = table.room
            try:
                checked = house.check(room.mode, overrides)
            except house.HouseRuleError as exc:
                raise RoomRefused(exc.code, exc.message) from exc
            table.room = await table.ctx.store.set_house_rules(room.id, checked or None)
            table.broadcast_room()

    def _creator_waiting(self, user: UserRecord) -> None:
        room = self.table.room
        if room.creator_id != user.id:
            raise RoomRefused(E.NOT_CREATOR, "only the room's creator may do this")
        if room.status != WAITING:
            raise RoomRefused(E.ALREADY_STARTED, "the game has already started")

    async def leave(self, user: UserRecord) -> None:
        """Leave a waiting room, or resign from a running game (the seat is then out, or played on by
        a bot in rooms created with ``bots_replace_leavers``)."""
        table = self.table
        if table.room.status == RUNNING:
            seat = table.room.seat_of(user.id)
            if seat is None:
                raise RoomRefused(E.NOT_IN_ROOM, "you hold no seat in this room")
            if seat.out:
                return
            async with table.lock:
                if table.game is None or table.game.is_over:
                    return
                seat = table.room.seat_of(user.id)
                if seat is None or seat.out:
                    return
                if table.room.bots_replace_leavers:
                    await table.take_over(seat)
                    return
                try:
                    await table.apply(seat.seat, {"type": "resign"})
                except ActionRefused as exc:
                    raise RoomRefused(exc.code, exc.message) from exc
                return
        async with table.lock:
            table.touched = time.monotonic()
            room = table.room
            seat = room.seat_of(user.id)
            if room.status != WAITING or seat is None:
                raise RoomRefused(E.NOT_IN_ROOM, "you hold no seat in this room")
            table.room = await table.ctx.store.free_seat(room.id, seat.seat)
            people = [s for s in table.room.seats if s.user_id]
            if not people:
                await table.ctx.store.close_room(room.id)
                await table.reload_room()
            elif room.creator_id == user.id:
                # The room lives on with the longest-seated person in charge.
                people.sort(key=lambda s: s.seat)
                table.room = await table.ctx.store.set_creator(room.id, str(people[0].user_id))
            table.broadcast_room()

    async def start(self, user: UserRecord) -> None:
        table = self.table
        async with table.lock:
            room = table.room
            self._creator_waiting(user)
            seats = sorted(room.seats, key=lambda s: s.seat)
            if len(seats) < 2:
                raise RoomRefused(E.NOT_ENOUGH_PLAYERS, "at least two seats must be filled")
            if room.mode == "team" and len(seats) != room.seat_count:
                raise RoomRefused(E.TEAM_NEEDS_FULL_TABLE, "team games start with every seat filled")
            # Empty seats are dropped; the engine numbers seats 0..n-1 and draws who begins.
            renumbered = [SeatRecord(i, s.user_id, s.bot, s.name, agent=s.agent) for i, s in enumerate(seats)]
            seat_info = await seat_perks.seat_info(table.ctx.store, room.mode, renumbered)
            seed = secrets.randbits(62)
            # House rules are the room's, read from the store, so a restart or a replay plays the same table.
            options = house.engine_options(room.house_rules)
            game = table.ctx.engine().new_game(room.mode, len(renumbered), seed, seat_info=seat_info, **options)
            table.room = await table.ctx.store.start_game(room.id, seed=seed, seats=renumbered, seat_info=seat_info)
            await table.begin(game)
