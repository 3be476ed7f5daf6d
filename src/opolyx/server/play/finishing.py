"""Seats going out and the game ending, brought into the store before anyone is told: who is out, the
result, and the XP, levels and cards each seat earned (credited in the transaction that stores the result)."""

from __future__ import annotations

import logging
from typing import Protocol

from opolyx.jsontypes import JSON
from opolyx.server.engine_api import GameLike
from opolyx.server.play import rating_credit, xp_credit
from opolyx.server.play.context import HubContext
from opolyx.storage import RUNNING, RoomRecord
from opolyx.storage.moderation import FORFEIT, RESIGNED

log = logging.getLogger(__name__)


def out_seats(snapshot: JSON) -> set[int]:
    """Seats the engine reports as no longer playing (bankrupt, forfeited or resigned)."""
    return {player["seat"] for player in snapshot["players"] if player["out"]}


class FinishingTable(Protocol):
    """What finishing needs of its room's hub."""

    room: RoomRecord
    ctx: HubContext
    game: GameLike | None
    snap: JSON | None
    log: list[tuple[int | None, JSON]]
    # XP, level-ups and card drops credited when the game finished, per seat.
    progression: list[JSON] | None

    def stop_clocks(self) -> None: ...

    async def reload_room(self) -> None: ...


class Finishing:
    def __init__(self, table: FinishingTable) -> None:
        self.table = table
        self.known_out: set[int] = {s.seat for s in table.room.seats if s.out}

    async def load(self) -> None:
        """A finished game's credits, as stored when it ended."""
        table = self.table
        table.progression = [a.to_json() for a in await table.ctx.store.awards_of_game(table.room.id)]

    async def persist_status(self) -> bool:
        """Bring the store's view (who is out, is it over) in line with the game, before anyone is told;
        True when the room changed (then the table must be shown its new seats)."""
        table = self.table
        game, snap = table.game, table.snap
        if game is None or snap is None:
            return False
        store = table.ctx.store
        newly_out = sorted(out_seats(snap) - self.known_out)
        if newly_out:
            await store.mark_out(table.room.id, newly_out)
            self.known_out.update(newly_out)
            await self._departures(newly_out, snap)
        if game.is_over and table.room.status == RUNNING:
            earned = await xp_credit.credits(
                store, table.ctx.engine(), table.room, table.log, snap, time_scale=table.ctx.settings.xp_time_scale
            )
            awards = await store.finish_game(table.room.id, snap["result"], earned)
            table.progression = [a.to_json() for a in awards]
            table.stop_clocks()
            await rating_credit.rate_after(store, table.room, snap["result"])
        if newly_out or game.is_over:
            await table.reload_room()
            return True
        return False

    async def _departures(self, seats: list[int], snap: JSON) -> None:
        """People who resigned or were forfeited by the clocks: counted in their reliability (a seat a bot
        took over is counted from the seat itself)."""
        reasons = {p["seat"]: p.get("out_reason") for p in snap["players"]}
        for seat in self.table.room.seats:
            reason = reasons.get(seat.seat)
            if seat.seat in seats and seat.user_id and reason in (RESIGNED, FORFEIT):
                try:
                    await self.table.ctx.store.record_departure(self.table.room.id, seat.user_id, str(reason))
                except Exception:
                    log.exception("could not record that seat %s left room %s", seat.seat, self.table.room.id)
