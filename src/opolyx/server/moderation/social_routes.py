"""What players do about each other: friends (asked by nickname, from a finished game's seat, or from a
chat line; mutual once both asked), who of them is online and in which public game, invitations into
one's room; mutes and blocks (their chat never reaches you, a block also keeps quick play from seating
you together and stops their invitations); the chat filter switch; reliability; and reports, each
stored with its evidence (the reported line and the chat and game around it, as they were then).

Nobody reads anyone else's reports: players only file them and see their own; operators read the queue
(operator_routes.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import AfterValidator, BaseModel, Field

from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.text import clean_chat
from opolyx.server.http.deps import ERRORS, ID_CHARS, RoomId, SessionUser, Svc, rate_limit, valid_id
from opolyx.storage import UNFINISHED, WAITING, RoomRecord, UserRecord
from opolyx.storage.moderation import BLOCK, FRIEND, MUTE

router = APIRouter(responses=ERRORS, tags=["social"])

REASONS = ("abuse", "cheating", "spam", "quitting", "name", "other")
# Actions kept with a report: the game around the reported moment.
REPORT_ACTIONS = 20


# Free text from a client is judged like chat (no NUL, control or invisible characters) before it is stored
# or sent to the database (PostgreSQL refuses NUL with an error).
Text = Annotated[str, AfterValidator(clean_chat)]


class Target(BaseModel):
    """Whom a request is about: an id, a nickname, a seat of a room, or the speaker of a room's chat line."""

    user: Text | None = Field(default=None, max_length=64)
    name: Text | None = Field(default=None, min_length=1, max_length=40)
    room: Text | None = Field(default=None, max_length=32)
    seat: int | None = Field(default=None, ge=0, le=5)
    at: float | None = None


class ReportIn(Target):
    reason: Literal["abuse", "cheating", "spam", "quitting", "name", "other"]
    note: Text | None = Field(default=None, max_length=500)


class FilterIn(BaseModel):
    on: bool


def _person(uid: str, name: str) -> JSON:
    return {"id": uid, "name": name}


async def _room_seen_by(svc: Svc, room_id: str, me: UserRecord) -> RoomRecord:
    """The room, if ``me`` could see it (public, or they sat in it or made it); else 404 like a missing one."""
    room = await svc.store.get_room(room_id) if valid_id(room_id) else None
    if room is None or not (room.public or room.creator_id == me.id or room.seat_of(me.id) is not None):
        hub = svc.rooms.hubs.get(room_id)
        if room is None or hub is None or me.id not in hub.admitted:
            raise ApiError(404, E.ROOM_NOT_FOUND, "no such room")
    return room


async def _target(svc: Svc, me: UserRecord, body: Target) -> tuple[str, JSON | None, RoomRecord | None]:
    """The person ``body`` names (and, for a chat line, the line with the lines around it)."""
    room = await _room_seen_by(svc, body.room, me) if body.room is not None else None
    line: JSON | None = None
    context: list[JSON] = []
    uid: str | None = None
    if room is not None and body.at is not None:
        n = svc.settings.report_context_lines
        line, context = await svc.store.chat_around(room.id, body.at, n, n)
        if line is None or not line.get("user"):
            raise ApiError(404, E.LINE_NOT_FOUND, "no chat line of that room said then")
        uid = str(line["user"])
    elif room is not None and body.seat is not None:
        seat = next((s for s in room.seats if s.seat == body.seat), None)
        if seat is None or seat.user_id is None:
            raise ApiError(404, E.USER_NOT_FOUND, "nobody sits there")
        uid = seat.user_id
    elif body.user is not None:
        uid = body.user if ID_CHARS.issuperset(body.user) and await svc.store.get_user(body.user) else None
    elif body.name is not None:
        found = await svc.store.users_by_nickname(body.name, limit=2)
        if len(found) > 1:
            raise ApiError(409, E.AMBIGUOUS_NAME, "several people go by that name; add them from a game instead")
        uid = found[0].id if found else None
    if uid is None:
        raise ApiError(404, E.USER_NOT_FOUND, "no such person")
    if uid == me.id:
        raise ApiError(422, E.CANNOT_TARGET_SELF, "that is you")
    return uid, ({"line": line, "chat": context} if line is not None else None), room


# --- friends, mutes, blocks ----------------------------------------------------------------------------------


@router.get("/api/social")
async def social(svc: Svc, me: SessionUser) -> JSON:
    """My friends (online, and in which public game), requests, mutes, blocks, invitations, filter switch."""
    store = svc.store
    asked = await store.links_of(me.id, FRIEND)
    askers = {p.id: p for p in await store.linked_to(me.id, FRIEND)}
    blocked = await store.links_of(me.id, BLOCK)
    hidden = await store.hidden_for(me.id)
    mutual = [p for p in asked if p.id in askers]
    seen = await store.last_seen([p.id for p in mutual])
    online_since = datetime.now(UTC) - timedelta(minutes=svc.settings.online_minutes)
    friends: list[JSON] = []
    for p in mutual:
        where: JSON | None = None
        online = seen.get(p.id, datetime.min.replace(tzinfo=UTC)) >= online_since
        room_id = await store.active_room_of(p.id)
        room = await store.get_room(room_id) if room_id else None
        if room is not None and room.public and room.status in UNFINISHED:
            where = {"id": room.id, "mode": room.mode, "status": room.status}
        friends.append(dict(_person(p.id, p.nickname), online=online or where is not None, room=where))
    since = datetime.now(UTC) - timedelta(minutes=svc.settings.invite_minutes)
    invites: list[JSON] = []
    friend_ids = {p.id for p in mutual}
    for inv in await store.invites_for(me.id, since):
        if inv.from_id in hidden or inv.from_id not in friend_ids:
            continue  # a blocked person's invitations never show
        room = await store.get_room(inv.room_id)
        if room is None or room.status not in UNFINISHED:
            continue
        invites.append(
            {
                "id": inv.id,
                "from": _person(inv.from_id, inv.from_name),
                "room": room.id,
                "mode": room.mode,
                "code": room.code,
                "status": room.status,
            }
        )
    return {
        "friends": friends,
        "requests": [_person(p.id, p.nickname) for p in askers.values() if p.id not in {a.id for a in asked}],
        "asked": [_person(p.id, p.nickname) for p in asked if p.id not in askers],
        "muted": [_person(p.id, p.nickname) for p in await store.links_of(me.id, MUTE)],
        "blocked": [_person(p.id, p.nickname) for p in blocked],
        "invites": invites,
        "chat_filter": not await store.chat_filter_off([me.id]),
        "reliability": (await store.reliability([me.id]))[me.id].to_json(),
    }


async def _link(svc: Svc, request: Request, me: UserRecord, body: Target, kind: str) -> JSON:
    await rate_limit(svc, "social", request, me)
    uid, _, _ = await _target(svc, me, body)
    await svc.store.set_link(me.id, uid, kind, True)
    if kind == BLOCK:
        # A block ends a friendship both ways.
        await svc.store.set_link(me.id, uid, FRIEND, False)
        await svc.store.set_link(uid, me.id, FRIEND, False)
    other = await svc.store.get_user(uid)
    return {"id": uid, "name": other.nickname if other else "?"}


@router.post("/api/social/friends", status_code=201)
async def add_friend(body: Target, request: Request, svc: Svc, me: SessionUser) -> JSON:
    """Ask someone to be friends (by nickname, seat or chat line); mutual once they ask back."""
    out = await _link(svc, request, me, body, FRIEND)
    askers = {p.id for p in await svc.store.linked_to(me.id, FRIEND)}
    return dict(out, mutual=out["id"] in askers)


@router.post("/api/social/mutes", status_code=201)
async def mute(body: Target, request: Request, svc: Svc, me: SessionUser) -> JSON:
    """Hide someone's chat from me (at every table, from now on)."""
    return await _link(svc, request, me, body, MUTE)


@router.post("/api/social/blocks", status_code=201)
async def block(body: Target, request: Request, svc: Svc, me: SessionUser) -> JSON:
    """Block someone: neither reads the other's chat, their invitations stop, quick play keeps us apart."""
    return await _link(svc, request, me, body, BLOCK)


UserPath = Annotated[str, Path(min_length=1, max_length=64)]


@router.delete("/api/social/{kind}/{user_id}", status_code=204)
async def unlink(kind: Literal["friends", "mutes", "blocks"], user_id: UserPath, svc: Svc, me: SessionUser) -> Response:
    """Undo a friendship (or decline a request: both sides' rows go), a mute or a block."""
    if not ID_CHARS.issuperset(user_id):
        raise ApiError(404, E.USER_NOT_FOUND, "no such person")
    link = {"friends": FRIEND, "mutes": MUTE, "blocks": BLOCK}[kind]
    await svc.store.set_link(me.id, user_id, link, False)
    if link == FRIEND:
        await svc.store.set_link(user_id, me.id, FRIEND, False)
    return Response(status_code=204)


@router.put("/api/social/filter")
async def chat_filter(body: FilterIn, svc: Svc, me: SessionUser) -> JSON:
    """Switch the chat's word filter on or off for me (it applies from my next connect to a room)."""
    await svc.store.set_chat_filter(me.id, body.on)
    return {"chat_filter": body.on}


@router.post("/api/social/invites", status_code=201)
async def invite(body: Target, request: Request, svc: Svc, me: SessionUser) -> JSON:
    """Invite a friend into the room I sit in (they see it in their friends panel for a few minutes)."""
    await rate_limit(svc, "social", request, me)
    uid, _, _ = await _target(svc, me, body)
    asked = {p.id for p in await svc.store.links_of(me.id, FRIEND)}
    askers = {p.id for p in await svc.store.linked_to(me.id, FRIEND)}
    if uid not in asked or uid not in askers or await svc.store.is_blocked(me.id, uid):
        raise ApiError(403, E.NOT_FRIENDS, "only friends can be invited")
    room_id = await svc.store.active_room_of(me.id)
    if room_id is None:
        raise ApiError(409, E.NO_ROOM_TO_INVITE, "sit in a room first")
    await svc.store.add_invite(me.id, uid, room_id)
    return {"invited": uid, "room": room_id}


@router.post("/api/social/invites/{invite_id}/accept")
async def accept_invite(
    invite_id: Annotated[int, Path(ge=1, le=2**31)], request: Request, svc: Svc, me: SessionUser
) -> JSON:
    """Join the room a friend invited me into (a private one too); in Team, on the inviter's side."""
    await rate_limit(svc, "join", request, me)
    inv = await svc.store.invite(invite_id, me.id)
    since = datetime.now(UTC) - timedelta(minutes=svc.settings.invite_minutes)
    if inv is None or inv.created_at < since or inv.from_id in await svc.store.hidden_for(me.id):
        raise ApiError(404, E.ROOM_NOT_FOUND, "no such invitation")
    room = await svc.store.get_room(inv.room_id)
    if room is None or room.status not in UNFINISHED:
        raise ApiError(404, E.ROOM_NOT_FOUND, "the room is gone")
    # A refusal (every seat taken, already in a game) is answered like the lobby's own join.
    if room.code is not None:
        return await svc.rooms.call(room.id, "enter", me, room.code, None, inv.from_id)
    if room.status == WAITING:
        return await svc.rooms.call(room.id, "join", me, None, inv.from_id)
    return await svc.rooms.call(room.id, "view", me)


# --- reliability ---------------------------------------------------------------------------------------------


@router.get("/api/rooms/{room_id}/reliability")
async def room_reliability(room_id: RoomId, svc: Svc, me: SessionUser) -> JSON:
    """For each person's seat of the room: how many of their last 30 finished games they left or forfeited."""
    room = await _room_seen_by(svc, room_id, me)
    people = {s.seat: s.user_id for s in room.seats if s.user_id}
    found = await svc.store.reliability(list(people.values()))
    return {"seats": {str(seat): found[uid].to_json() for seat, uid in people.items()}}


# --- reports -------------------------------------------------------------------------------------------------


@router.post("/api/reports", status_code=201)
async def report(body: ReportIn, request: Request, svc: Svc, me: SessionUser) -> JSON:
    """Report a person or a chat line. The report keeps what it refers to as it is now: the line, the chat
    around it and the game's last moves, so it holds after the chat scrolls on or the line is removed."""
    await rate_limit(svc, "report", request, me)
    uid, said, room = await _target(svc, me, body)
    evidence: JSON = {"chat": said["chat"] if said else []}
    if room is not None:
        if said is None:
            _, evidence["chat"] = await svc.store.chat_around(room.id, -1.0, svc.settings.report_context_lines, 0)
        actions = await svc.store.load_actions(room.id)
        evidence["room"] = {
            "id": room.id,
            "mode": room.mode,
            "status": room.status,
            "seq": len(actions),
            "seats": [{"seat": s.seat, "name": s.name, "user": s.user_id, "bot": s.bot} for s in room.seats],
        }
        evidence["actions"] = [
            {"seq": a.seq, "seat": a.seat, "action": a.action, "at": a.at.isoformat()}
            for a in actions[-REPORT_ACTIONS:]
        ]
    report_id = await svc.store.add_report(
        me.id,
        uid,
        room_id=room.id if room else None,
        reason=body.reason,
        note=body.note,
        line=said["line"] if said else None,
        evidence=evidence,
    )
    return {"id": report_id}


@router.get("/api/reports/mine")
async def my_reports(svc: Svc, me: SessionUser, limit: Annotated[int, Query(ge=1, le=100)] = 50) -> list[JSON]:
    """The reports I filed and whether an operator has handled them (never anyone else's, never evidence)."""
    return [
        {"id": r.id, "reason": r.reason, "created_at": r.created_at.isoformat(), "handled": r.handled_at is not None}
        for r in await svc.store.reports_by(me.id, limit)
    ]
