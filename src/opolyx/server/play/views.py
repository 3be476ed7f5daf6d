"""What the table and the lobby see of a room: the room with its seats (who is a bot, an agent, online),
and the public game, with the names of seats a bot took over and each owned square's current rent."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from opolyx.engine.teams import side_of_seat
from opolyx.jsontypes import JSON
from opolyx.progression.terms import table_terms
from opolyx.rules import house, load_rules
from opolyx.server.engine_api import GameLike
from opolyx.server.play.peers import Peer
from opolyx.server.play.seat_colours import seat_colours
from opolyx.storage import RoomRecord, SeatRecord

_BOT_NAME = re.compile(r"^Bot (\d+) \((?:easy|normal|hard)\)$")


def bot_number(name: str) -> int | None:
    m = _BOT_NAME.match(name)
    return int(m.group(1)) if m else None


def public_game(room: RoomRecord, game: GameLike | None, snap: JSON | None) -> JSON | None:
    """The snapshot clients see: seats a bot took over carry the bot's name, owned squares their
    current rent (asked of the engine, so players read it off the board)."""
    if snap is None:
        return None
    rents = game.current_rents() if game is not None else {}
    if rents:
        squares = [dict(sq, rent=rents[sq["index"]]) if sq["index"] in rents else sq for sq in snap["squares"]]
        snap = dict(snap, squares=squares)
    swapped = {s.seat: s for s in room.seats if s.took_over_at is not None}
    if not swapped:
        return snap
    players: list[JSON] = []
    for player in snap["players"]:
        seat = swapped.get(player["seat"])
        players.append(dict(player, name=seat.name, bot=True) if seat is not None else player)
    return dict(snap, players=players)


def bot_view(room: RoomRecord, seat: SeatRecord) -> JSON | None:
    if seat.bot is None:
        return None
    replaces = None
    info = room.seat_info or []
    if seat.took_over_at is not None and seat.seat < len(info):
        replaces = info[seat.seat].get("name")
    return {"strength": seat.bot, "number": bot_number(seat.name), "replaces": replaces}


def takeover_event(room: RoomRecord, seat: SeatRecord) -> JSON:
    bot = bot_view(room, seat) or {}
    return {
        "type": "bot_took_over",
        "seat": seat.seat,
        "name": bot.get("replaces"),
        "bot": {"strength": seat.bot, "number": bot.get("number")},
    }


def connected_users(conns: Iterable[Peer]) -> set[str]:
    return {c.user.id for c in conns if not c.closed}


def room_view(
    room: RoomRecord, conns: Iterable[Peer], viewer: str | None, picked: Mapping[str, int] | None = None
) -> JSON:
    """The room as ``viewer`` sees it (the code only to those seated and its creator)."""
    conns = list(conns)
    colours = seat_colours(room.seats, picked or {})
    online = connected_users(conns)
    # A seat is an agent's when it was taken through an API key, or while a key plays it now.
    agents = {c.user.id for c in conns if c.user.agent and not c.closed}
    seated = room.seat_of(viewer) is not None if viewer else False
    teams = load_rules(room.mode).teams
    players = [
        {
            "seat": s.seat,
            "name": s.name,
            "kind": "bot" if s.is_bot else "human",
            "strength": s.bot,
            "bot": bot_view(room, s),
            "connected": True if s.is_bot else s.user_id in online,
            "out": s.out,
            "agent": s.agent or s.user_id in agents,
            "you": viewer is not None and s.user_id == viewer,
            "team": side_of_seat(s.seat) if teams else None,
            "colour": colours[s.seat],
        }
        for s in room.seats
    ]
    seat_users = {s.user_id for s in room.seats if s.user_id}
    mine = room.seat_of(viewer) if viewer else None
    return {
        "id": room.id,
        "mode": room.mode,
        "seats": room.seat_count,
        "public": room.public,
        "bots_replace_leavers": room.bots_replace_leavers,
        "status": room.status,
        "creator": room.creator_id,
        "code": room.code if (seated or viewer == room.creator_id) else None,
        "players": players,
        "spectators": len({c.user.id for c in conns if c.user.id not in seat_users}),
        "created_at": room.created_at.isoformat(),
        "ws": f"/ws/rooms/{room.id}",
        "house_rules": room.house_rules,
        "house_changes": house.changes(room.mode, room.house_rules),
        # House-rule rooms are unrated and pay no XP (said in the lobby and the room before the start).
        "rated": room.moves_ratings,
        "xp": table_terms(
            agent=mine is not None and (mine.agent or mine.user_id in agents),
            shared=shared_identity(conns, seat_users),
            house_rules=bool(room.house_rules),
        ),
    }


def shared_identity(conns: Iterable[Peer], seat_users: set[str]) -> bool:
    """Whether two seated people are connected from one address or one device: then only one of their
    seats can earn XP at this table (opolyx.progression.credits.same_person_seats)."""
    seen: dict[str, str] = {}
    for c in conns:
        if c.closed or c.user.id not in seat_users:
            continue
        for mark in (f"addr:{c.address}" if c.address != "unknown" else "", f"device:{c.device}" if c.device else ""):
            if not mark:
                continue
            other = seen.setdefault(mark, c.user.id)
            if other != c.user.id:
                return True
    return False
