"""The operator page's routes (``/api/operator/…``): the report queue with each report's evidence, live
rooms and their players, sanctions (ban or mute a person or an address for a time), removing chat lines,
ending a room, and the audit log. Every route is an :class:`OperatorRoute`: 404 for everyone else."""

from __future__ import annotations

import contextlib
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import AfterValidator, BaseModel, Field

from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError, RoomRefused
from opolyx.protocol.text import clean_chat
from opolyx.server.http.deps import RoomId, Svc
from opolyx.server.moderation import actions
from opolyx.server.moderation.operators import PREFIX, OperatorRoute, current_operator, operator_name
from opolyx.server.moderation.room_calls import CLOSE, FORGET_LINE, REMOVED_TEXT
from opolyx.storage import RUNNING, WAITING, UserRecord
from opolyx.storage.moderation import ReportRecord, SanctionRecord

router = APIRouter(prefix=PREFIX, tags=["operators"], route_class=OperatorRoute, include_in_schema=False)
Operator = Annotated[UserRecord, Depends(current_operator)]
Reason = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(clean_chat)]
Ident = Annotated[str, AfterValidator(clean_chat)]


class SanctionIn(BaseModel):
    kind: Literal["ban", "mute"]
    user: Ident | None = Field(default=None, max_length=64)
    address: Ident | None = Field(default=None, max_length=64)
    minutes: int = Field(ge=1, le=actions.MAX_MINUTES)
    reason: Reason


class ReasonIn(BaseModel):
    reason: Reason


class LineIn(BaseModel):
    room: Ident = Field(min_length=1, max_length=32)
    at: float
    reason: Reason


class OutcomeIn(BaseModel):
    outcome: Reason


async def _names(svc: Svc, ids: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for uid in ids:
        user = await svc.store.get_user(uid)
        out[uid] = user.nickname if user is not None else "?"
    return out


def _report_out(r: ReportRecord, names: dict[str, str]) -> JSON:
    return {
        "id": r.id,
        "reporter": {"id": r.reporter_id, "name": names.get(r.reporter_id)},
        "reported": {"id": r.reported_id, "name": names.get(r.reported_id)},
        "room": r.room_id,
        "reason": r.reason,
        "note": r.note,
        "line": r.line,
        "evidence": r.evidence,
        "created_at": r.created_at.isoformat(),
        "handled_at": r.handled_at.isoformat() if r.handled_at else None,
        "handled_by": r.handled_by,
        "outcome": r.outcome,
    }


def _sanction_out(s: SanctionRecord) -> JSON:
    return {
        "id": s.id,
        "kind": s.kind,
        "user": s.user_id,
        "address": s.address,
        "reason": s.reason,
        "by": s.created_by,
        "created_at": s.created_at.isoformat(),
        "expires_at": s.expires_at.isoformat(),
        "lifted_at": s.lifted_at.isoformat() if s.lifted_at else None,
    }


@router.get("/me")
async def me(op: Operator) -> JSON:
    """The page asks this first: only an operator gets an answer (everyone else: 404)."""
    return {"id": op.id, "name": op.nickname, "operator": operator_name(op)}


@router.get("/reports")
async def reports(svc: Svc, op: Operator, state: Literal["open", "all"] = "open") -> list[JSON]:
    found = await svc.store.reports(open_only=state == "open", limit=200)
    names = await _names(svc, {r.reporter_id for r in found} | {r.reported_id for r in found})
    return [_report_out(r, names) for r in found]


@router.post("/reports/{report_id}/close")
async def close_report(report_id: Annotated[int, Path(ge=1)], body: OutcomeIn, svc: Svc, op: Operator) -> JSON:
    if not await actions.close_report(svc.store, operator_name(op), report_id, body.outcome):
        raise ApiError(404, E.REPORT_NOT_FOUND, "no open report with that id")
    return {"closed": report_id}


@router.get("/rooms")
async def live_rooms(svc: Svc, op: Operator) -> list[JSON]:
    """Every waiting and running room, private ones too, with who sits where."""
    out: list[JSON] = []
    for room in await svc.store.list_rooms([WAITING, RUNNING], public_only=False, limit=1000):
        hub = svc.rooms.hubs.get(room.id)
        online = hub.connected_users() if hub is not None else None
        out.append(
            {
                "id": room.id,
                "mode": room.mode,
                "status": room.status,
                "public": room.public,
                "created_at": room.created_at.isoformat(),
                "players": [
                    {
                        "seat": s.seat,
                        "name": s.name,
                        "user": s.user_id,
                        "bot": s.bot,
                        "out": s.out,
                        "connected": None if online is None or s.user_id is None else s.user_id in online,
                    }
                    for s in room.seats
                ],
            }
        )
    return out


@router.post("/rooms/{room_id}/close")
async def close_room(room_id: RoomId, body: ReasonIn, svc: Svc, op: Operator) -> JSON:
    """End a running game where it stands (no result, no XP) or close a waiting room."""
    room = await svc.store.get_room(room_id)
    if room is None:
        raise ApiError(404, E.ROOM_NOT_FOUND, "no such room")
    with contextlib.suppress(RoomRefused):
        await svc.rooms.call(room_id, CLOSE, None)
    await svc.store.audit(operator_name(op), "close_room", f"room:{room_id}", body.reason, {"status": room.status})
    return {"closed": room_id}


@router.post("/chat/remove")
async def remove_line(body: LineIn, svc: Svc, op: Operator) -> JSON:
    """Take a chat line out: stored text replaced, and every open room view shows the replacement."""
    removed = await svc.store.remove_chat_line(body.room, body.at, REMOVED_TEXT)
    if not removed:
        raise ApiError(404, E.LINE_NOT_FOUND, "no chat line of that room said then")
    with contextlib.suppress(RoomRefused, ApiError):
        await svc.rooms.call(body.room, FORGET_LINE, None, body.at)
    await svc.store.audit(operator_name(op), "remove_line", f"room:{body.room}", body.reason, {"at": body.at})
    return {"removed": removed}


@router.get("/sanctions")
async def sanctions(svc: Svc, op: Operator, state: Literal["active", "all"] = "active") -> list[JSON]:
    return [_sanction_out(s) for s in await svc.store.sanctions(active_only=state == "active", limit=500)]


@router.post("/sanctions", status_code=201)
async def add_sanction(body: SanctionIn, svc: Svc, op: Operator) -> JSON:
    if (body.user is None) == (body.address is None):
        raise ApiError(422, E.INVALID_REQUEST, "name a person (user) or an address, not both")
    if body.user is not None and await svc.store.get_user(body.user) is None:
        raise ApiError(404, E.USER_NOT_FOUND, "no such person")
    if body.user == op.id:
        raise ApiError(422, E.CANNOT_TARGET_SELF, "operators do not sanction themselves")
    sanction_id = await actions.sanction(
        svc.store,
        svc.rooms,
        operator_name(op),
        kind=body.kind,
        user_id=body.user,
        address=body.address,
        minutes=body.minutes,
        reason=body.reason,
    )
    return {"id": sanction_id}


@router.post("/sanctions/{sanction_id}/lift")
async def lift_sanction(sanction_id: Annotated[int, Path(ge=1)], body: ReasonIn, svc: Svc, op: Operator) -> JSON:
    if not await actions.lift(svc.store, operator_name(op), sanction_id, body.reason):
        raise ApiError(404, E.SANCTION_NOT_FOUND, "no such sanction")
    return {"lifted": sanction_id}


@router.get("/audit")
async def audit(svc: Svc, op: Operator, limit: Annotated[int, Query(ge=1, le=1000)] = 200) -> list[JSON]:
    return [
        {
            "id": a.id,
            "at": a.at.isoformat(),
            "operator": a.operator,
            "action": a.action,
            "target": a.target,
            "reason": a.reason,
            "details": a.details,
        }
        for a in await svc.store.audit_log(limit)
    ]


@router.get("/people")
async def people(svc: Svc, op: Operator, name: Annotated[Ident, Query(min_length=1, max_length=40)]) -> list[JSON]:
    """People by nickname, with their reliability (to pick whom a sanction names)."""
    found = await svc.store.users_by_nickname(name, limit=20)
    reliability = await svc.store.reliability([p.id for p in found])
    return [{"id": p.id, "name": p.nickname, "reliability": reliability[p.id].to_json()} for p in found]
