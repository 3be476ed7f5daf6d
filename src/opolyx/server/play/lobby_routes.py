"""HTTP routes of the lobby (rooms to list, create, join, leave, fill with bots and start), replays of
finished games, and health. Documented by FastAPI at /docs."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from opolyx import fairness
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.models import (
    AddBot,
    ColourIn,
    ErrorOut,
    Health,
    HouseRulesIn,
    JoinByCode,
    JoinIn,
    ReplayOut,
    RoomCreate,
    RoomList,
    RoomOut,
    TeamIn,
    VerifyIn,
    VerifyOut,
)
from opolyx.rules import house
from opolyx.server.http.deps import (
    ERRORS,
    GameId,
    MaybeUser,
    RoomId,
    Services,
    Svc,
    User,
    client_address,
    rate_limit,
    room_out,
    valid_id,
)
from opolyx.server.play.replays import MAX_SNAPSHOT_PAGE, viewable_game
from opolyx.server.play.views import room_view
from opolyx.storage import RUNNING, WAITING, UserRecord

router = APIRouter(responses=ERRORS)


# --- lobby -------------------------------------------------------------------------------------------------


async def _views(svc: Services, status: str, viewer: UserRecord | None) -> list[RoomOut]:
    out = []
    for room in await svc.rooms.listing([status]):
        hub = svc.rooms.hubs.get(room.id)
        viewer_id = viewer.id if viewer else None
        # A room with no hub in this process has no sockets here either: its stored record is the view.
        view = hub.room_view(viewer_id) if hub is not None else room_view(room, (), viewer_id)
        out.append(RoomOut.model_validate(view))
    return out


async def _room_call(svc: Services, room_id: str, op: str, user: UserRecord | None, *args: Any) -> RoomOut:
    """Run a lobby call on the room wherever it lives (this process or a cluster peer); the room as
    ``user`` now sees it."""
    if not valid_id(room_id):
        raise ApiError(404, E.ROOM_NOT_FOUND, "no such room")
    return RoomOut.model_validate(await svc.rooms.call(room_id, op, user, *args))


@router.get("/api/rooms", tags=["lobby"])
async def list_rooms(svc: Svc, viewer: MaybeUser) -> RoomList:
    """Public rooms waiting for players, and public games in progress (to watch)."""
    return RoomList(waiting=await _views(svc, WAITING, viewer), running=await _views(svc, RUNNING, viewer))


@router.post("/api/rooms", tags=["lobby"], status_code=201)
async def create_room(body: RoomCreate, request: Request, svc: Svc, user: User) -> RoomOut:
    """Create a room and sit in it. Private rooms get a join code (shown to those seated). With
    ``house_rules`` the room plays its mode with those changes (checked first: a bad value makes no room);
    such a room is unrated and pays no XP."""
    await rate_limit(svc, "create", request, user)
    try:
        checked = house.check(body.mode, body.house_rules)
    except house.HouseRuleError as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    hub = await svc.rooms.create(
        user,
        body.mode,
        body.seats,
        body.public,
        body.bots_replace_leavers,
        address=client_address(request),
        house_rules=checked or None,
    )
    return room_out(hub, user)


@router.get("/api/house-rules", tags=["lobby"])
async def house_rule_catalogue() -> dict[str, Any]:
    """The parameters a room's creator may change, with their bounds (``kind``, ``min``, ``max``,
    ``step``, ``nullable``: may be switched off, ``modes``: only in these modes), and each mode's defaults."""
    return house.catalogue()


@router.put("/api/rooms/{room_id}/house-rules", tags=["lobby"])
async def set_house_rules(room_id: RoomId, body: HouseRulesIn, svc: Svc, user: User) -> RoomOut:
    """Creator only, before the start: replace the room's house rules (null or {} plays the standard mode).
    A refused table (a stable ``house_rule_*`` code) changes nothing."""
    return await _room_call(svc, room_id, "set_house_rules", user, body.house_rules)


@router.get("/api/rooms/{room_id}", tags=["lobby"])
async def get_room(room_id: RoomId, svc: Svc, viewer: MaybeUser) -> RoomOut:
    """A room by id; also how to spectate: connect to its ``ws`` path without holding a seat. Private
    rooms answer only those seated in them or admitted by their code (others get 404)."""
    return await _room_call(svc, room_id, "view", viewer)


@router.post("/api/rooms/{room_id}/join", tags=["lobby"])
async def join_room(room_id: RoomId, request: Request, svc: Svc, user: User, body: JoinIn | None = None) -> RoomOut:
    """Take a free seat; in a Team room ``{"team": 0|1}`` asks for a seat on that side (``team_full`` when
    it has none)."""
    await rate_limit(svc, "join", request, user)
    team = body.team if body is not None else None
    return await _room_call(svc, room_id, "join", user, *(() if team is None else (team,)))


@router.post("/api/join", tags=["lobby"])
async def join_by_code(body: JoinByCode, request: Request, svc: Svc, user: User) -> RoomOut:
    """Join a private room by its code; once its game has started, the code lets you watch it."""
    await rate_limit(svc, "join", request, user)
    # Every attempt costs from a small allowance, so codes cannot be guessed by trying them.
    await rate_limit(svc, "code", request, user)
    code = body.code.strip().upper()
    room_id = await svc.rooms.by_code(code)
    return await _room_call(svc, room_id, "enter", user, code, body.team)


@router.post("/api/rooms/{room_id}/leave", tags=["lobby"])
async def leave_room(room_id: RoomId, svc: Svc, user: User) -> RoomOut:
    """Leave a waiting room; in a running game this resigns (the seat is out, you are free). In a room
    created with ``bots_replace_leavers`` a bot of normal strength plays your seat on instead."""
    return await _room_call(svc, room_id, "leave", user)


@router.post("/api/rooms/{room_id}/bots", tags=["lobby"])
async def add_bot(room_id: RoomId, body: AddBot, svc: Svc, user: User) -> RoomOut:
    """Creator only: seat a bot of the chosen strength in the first empty seat."""
    return await _room_call(svc, room_id, "add_bot", user, body.strength)


@router.delete("/api/rooms/{room_id}/bots/{seat}", tags=["lobby"])
async def remove_bot(room_id: RoomId, seat: int, svc: Svc, user: User) -> RoomOut:
    return await _room_call(svc, room_id, "remove_bot", user, seat)


@router.post("/api/rooms/{room_id}/team", tags=["lobby"])
async def choose_team(room_id: RoomId, body: TeamIn, svc: Svc, user: User) -> RoomOut:
    """Team rooms, before the start: move yourself to a free seat on that side (seats alternate between the
    teams, so the side is the seat's parity). Nobody can move anyone else."""
    return await _room_call(svc, room_id, "choose_team", user, body.team)


@router.post("/api/rooms/{room_id}/colour", tags=["lobby"])
async def choose_colour(room_id: RoomId, body: ColourIn, svc: Svc, user: User) -> RoomOut:
    """Before the start: pick your seat's colour (0-5, the client's palette). Colours are unique per table:
    one another player picked is refused with ``colour_taken``; seats that did not pick keep theirs."""
    return await _room_call(svc, room_id, "choose_colour", user, body.colour)


@router.post("/api/rooms/{room_id}/shuffle", tags=["lobby"])
async def shuffle_teams(room_id: RoomId, svc: Svc, user: User) -> RoomOut:
    """Creator only, Team rooms, before the start: deal everyone seated to random seats (random sides)."""
    return await _room_call(svc, room_id, "shuffle_teams", user)


@router.post("/api/rooms/{room_id}/start", tags=["lobby"])
async def start_game(room_id: RoomId, svc: Svc, user: User) -> RoomOut:
    """Creator only, with at least two seats filled; the engine draws who begins."""
    return await _room_call(svc, room_id, "start", user)


# --- replays and health ------------------------------------------------------------------------------------


@router.get(
    "/games/{game_id}/replay",
    tags=["games"],
    response_model=None,
    responses={200: {"model": ReplayOut, "description": "The replay (a page of it with start/limit)."}},
)
@router.get("/api/games/{game_id}/replay", tags=["games"], include_in_schema=False, response_model=None)
async def replay(
    game_id: GameId,
    request: Request,
    svc: Svc,
    viewer: MaybeUser,
    snapshots: Annotated[bool, Query(description="Add the public state after each step.")] = False,
    events: Annotated[bool, Query(description="Add the events each action caused (recomputed from the seed).")] = False,
    start: Annotated[int, Query(ge=0, description="Index of the first action of this page.")] = 0,
    limit: Annotated[
        int | None,
        Query(ge=1, le=100_000, description=f"Actions in this page (with snapshots at most {MAX_SNAPSHOT_PAGE})."),
    ] = None,
    code: Annotated[str | None, Query(max_length=16, description="A private game's code.")] = None,
) -> Response:
    """A finished game's action log and result (optionally each step's events and public state), and
    its revealed seed (``fairness``), so anyone can check the dice: ``opolyx verify``. Computed once,
    then served from a cache; rate-limited per address."""
    await rate_limit(svc, "replay", request)
    room = await viewable_game(svc.store, game_id, viewer, code)
    if snapshots:
        limit = min(limit or MAX_SNAPSHOT_PAGE, MAX_SNAPSHOT_PAGE)
    records = await svc.store.load_actions(game_id)
    body = await svc.replays.render(
        room,
        records,
        nonce=svc.rooms.ctx.seed_nonce(room.id),
        snapshots=snapshots,
        events=events,
        start=start,
        limit=limit,
    )
    return Response(body, media_type="application/json")


@router.post("/api/games/{game_id}/verify", tags=["games"])
async def verify_game(
    game_id: GameId,
    body: VerifyIn,
    request: Request,
    svc: Svc,
    viewer: MaybeUser,
    code: Annotated[str | None, Query(max_length=16)] = None,
) -> VerifyOut:
    """Fair dice: recompute the game from its revealed seed and compare with what your client saw (the
    commitment it kept from the game's start, and the events it showed). The commitment is required: the
    server's own copy proves nothing, so null or missing is ``commitment_required``. ``opolyx verify``
    does the same from a replay file, on your own machine."""
    if not body.commitment:
        raise ApiError(422, E.COMMITMENT_REQUIRED, "send the commitment your client saw when the game started")
    await rate_limit(svc, "replay", request)
    room = await viewable_game(svc.store, game_id, viewer, code)
    records = await svc.store.load_actions(game_id)
    raw = await svc.replays.render(
        room, records, nonce=svc.rooms.ctx.seed_nonce(room.id), snapshots=False, events=False, start=0, limit=None
    )
    replay = json.loads(raw)
    replay["fairness"]["commitment"] = body.commitment  # judge the commitment the client was shown
    seen: dict[int, list[dict[str, Any]]] = {}
    for entry in body.seen:
        seen.setdefault(entry.seq, []).append(entry.event)
    engine = svc.rooms.ctx.engine()
    report = await asyncio.to_thread(fairness.verify, replay, engine, seen=seen or None)
    return VerifyOut.model_validate(report.as_json())


@router.get("/healthz", tags=["health"], response_model=Health, responses={503: {"model": ErrorOut}})
async def healthz(svc: Svc) -> Health | JSONResponse:
    """Ready when the server runs and its database answers."""
    try:
        await svc.store.ping()
    except Exception:
        return JSONResponse({"code": "database_unavailable", "message": "database unreachable"}, 503)
    return Health(status="ok")
