"""What an operator does to one room, run by the room's hub wherever it lives (a lobby call, forwarded
to the owning process in a cluster): end or close the room, take a chat line out of what it shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from opolyx.jsontypes import JSON
from opolyx.storage import UNFINISHED

if TYPE_CHECKING:
    from opolyx.server.play.hub import RoomHub

CLOSE = "operator_close"
FORGET_LINE = "operator_forget_line"
OPERATOR_CALLS = (CLOSE, FORGET_LINE)
# What a removed chat line says from then on (stored and shown).
REMOVED_TEXT = "[removed by an operator]"


async def operator_call(hub: RoomHub, op: str, args: Sequence[Any]) -> JSON:
    if op == CLOSE:
        async with hub.lock:
            if hub.room.status in UNFINISHED:
                # The game stops where it is: no result, no XP; its seats are free at once.
                await hub.ctx.store.close_room(hub.room.id)
                await hub.reload_room()
                hub.stop_clocks()
                hub.bots.stop()
                hub.broadcast_snapshots()
        return hub.room_view(None)
    if op == FORGET_LINE:
        at = float(args[0])
        async with hub.lock:
            if hub.messages.forget(at, REMOVED_TEXT):
                hub.broadcast_snapshots()
        return hub.room_view(None)
    raise ValueError(op)
