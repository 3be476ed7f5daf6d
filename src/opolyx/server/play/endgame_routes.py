"""HTTP routes for after a game: its summary for the end screen, and a rematch with the same seats."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.models import RoomOut
from opolyx.rules import house
from opolyx.server.http.deps import (
    ERRORS,
    GameId,
    MaybeUser,
    RoomId,
    Services,
    Svc,
    User,
    rate_limit,
    room_out,
)
from opolyx.server.play.game_stats import summarize
from opolyx.server.play.replays import viewable_game
from opolyx.storage import FINISHED, WAITING, RoomRecord, UserRecord

router = APIRouter(responses=ERRORS)


class SeatStats(BaseModel):
    seat: int
    rent_collected: int = Field(description="Rent this seat received (after rent tax).")
    biggest_rent: int = Field(description="The largest single rent this seat received.")
    auctions_won: int


class GameSummary(BaseModel):
    id: str
    mode: str
    players: list[str]
    rounds: list[int] = Field(description="The round at which each net-worth sample was taken.")
    net_worth: list[list[int]] = Field(description="Per seat, its net worth at each of `rounds`.")
    stats: list[SeatStats]
    result: dict[str, object] | None


async def _finished(svc: Services, game_id: str) -> RoomRecord:
    room = await svc.store.get_room(game_id)
    if room is None or room.seed is None:
        raise ApiError(404, E.GAME_NOT_FOUND, f"no game {game_id}")
    if room.status != FINISHED:
        raise ApiError(409, E.GAME_NOT_FINISHED, "the summary is served once the game is over")
    return room


@router.get("/api/games/{game_id}/summary", tags=["games"], response_model=GameSummary)
async def game_summary(
    game_id: GameId,
    request: Request,
    svc: Svc,
    viewer: MaybeUser,
    code: Annotated[str | None, Query(max_length=16, description="A private game's code.")] = None,
) -> Response:
    """A finished game's net worth per seat round by round and its key numbers (rent, auctions). Seen by
    whoever may see its replay (a private game: its players, its creator, or with its code); computed
    once, then served from a cache; rate-limited per address like replays."""
    await rate_limit(svc, "replay", request)
    room = await viewable_game(svc.store, game_id, viewer, code)
    seed = room.seed
    assert seed is not None  # viewable_game checked it
    key = ("summary", room.id)
    body = svc.replays.get(key)
    if body is None:
        records = await svc.store.load_actions(room.id)
        engine = svc.rooms.ctx.engine

        def compute() -> bytes:
            game = engine().new_game(
                room.mode, len(room.seats), seed, seat_info=room.seat_info, **house.engine_options(room.house_rules)
            )
            data = summarize(game, [(r.seat, r.action) for r in records])
            out = GameSummary(id=room.id, mode=room.mode, players=[s.name for s in room.seats], **data)
            return out.model_dump_json().encode()

        body = await svc.replays.cached(key, compute)
    return Response(body, media_type="application/json")


async def _open_rematch(svc: Services, old: RoomRecord, user: UserRecord) -> str | None:
    """The waiting room a player of ``old`` (this one included) already opened as its rematch, if any."""
    people = {s.user_id for s in old.seats if s.user_id is not None}
    for person in [user.id, *sorted(people - {user.id})]:
        room_id = await svc.store.active_room_of(person)
        room = await svc.store.get_room(room_id) if room_id else None
        if (
            room is not None
            and room.status == WAITING
            and room.creator_id in people
            and room.mode == old.mode
            and room.seat_count == old.seat_count
        ):
            return room.id
    return None


@router.post("/api/rooms/{room_id}/rematch", tags=["lobby"])
async def rematch(room_id: RoomId, request: Request, svc: Svc, user: User) -> RoomOut:
    """Play a finished game again with the same seats: the first person to ask opens a room like the old
    one (mode, seats, visibility) with the same bots at the same strengths; everyone else who asks joins
    that room (a private one too: a seat of the old game admits them). The creator starts it as usual.
    Each person opens at most one rematch room per finished game, within the room-creation rate limit."""
    await rate_limit(svc, "join", request, user)
    old = await _finished(svc, room_id)
    if old.seat_of(user.id) is None:
        raise ApiError(403, E.NOT_IN_ROOM, "only the game's players can ask for a rematch")
    existing = await _open_rematch(svc, old, user)
    if existing is not None:
        mine = await svc.store.active_room_of(user.id)
        if mine == existing:
            return RoomOut.model_validate(await svc.rooms.call(existing, "view", user))
        room = await svc.store.get_room(existing)
        if room is not None and room.code is not None:
            # A private rematch room: the old game's seat is the invitation (as its code would be).
            return RoomOut.model_validate(await svc.rooms.call(existing, "enter", user, room.code))
        return RoomOut.model_validate(await svc.rooms.call(existing, "join", user))
    await rate_limit(svc, "create", request, user)
    if not await svc.limiter.take("rematch", f"game:{old.id}:user:{user.id}"):
        raise ApiError(429, E.RATE_LIMITED, "you already opened a rematch room for this game")
    # The same table: a house-rule game's rematch plays the same house rules (checked when first stored).
    hub = await svc.rooms.create(
        user, old.mode, old.seat_count, old.public, old.bots_replace_leavers, house_rules=old.house_rules
    )
    for seat in sorted(old.seats, key=lambda s: s.seat):
        if seat.bot is not None and seat.took_over_at is None:
            await hub.seats.add_bot(user, seat.bot)
    old_hub = svc.rooms.hubs.get(old.id)
    if old_hub is not None:
        # Those still looking at the old game's end screen learn where the rematch is.
        asker = old.seat_of(user.id)
        old_hub.broadcast(
            {
                "type": "notice",
                "seq": old_hub.seq,
                "event": {"type": "rematch", "room": hub.room.id, "seat": asker.seat if asker else None},
            }
        )
    return room_out(hub, user)
