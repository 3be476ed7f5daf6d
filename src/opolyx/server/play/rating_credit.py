"""Skill ratings at the end of a rated game: who sat where and placed how, handed to the rules
(opolyx.progression.skill) and booked by the store in one transaction (at most once per game).

A person's seat moves their rating in the game's mode, in the pool of how they played it: themselves
(``people``) or through a personal API key (``agents``, a board of its own). Bots (also a bot that took
over a leaver's seat) are fixed anchors. Unrated rooms (private, house rules) change nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping

from opolyx.jsontypes import JSON
from opolyx.progression.skill import Entrant, Skill, bot_skill, rate
from opolyx.storage import AGENTS, PEOPLE, Moved, RatingKey, RatingRecord, RoomRecord, Store
from opolyx.storage.ratings import Decide

log = logging.getLogger(__name__)


def entrants_of(room: RoomRecord, result: JSON) -> list[tuple[RatingKey | None, str | None, int, int]]:
    """(rating key or None for a bot, the bot's strength, side, place) per seat of the result."""
    by_seat = {s.seat: s for s in room.seats}
    team_game = room.mode == "team"
    out: list[tuple[RatingKey | None, str | None, int, int]] = []
    for p in result.get("placements") or []:
        seat = by_seat.get(int(p["seat"]))
        if seat is None:
            continue
        side = int(p["team"]) if team_game and p.get("team") is not None else int(p["seat"])
        if seat.user_id is not None and not seat.is_bot:
            key = RatingKey(seat.user_id, room.mode, AGENTS if seat.agent else PEOPLE)
            out.append((key, None, side, int(p["place"])))
        else:
            out.append((None, seat.bot or "normal", side, int(p["place"])))
    return out


def decider(seats: list[tuple[RatingKey | None, str | None, int, int]]) -> Decide:
    """The store's ``decide`` for this game: new ratings from the stored ones (or the start)."""

    def decide(stored: Mapping[RatingKey, RatingRecord | None]) -> dict[RatingKey, Moved]:
        entrants: list[Entrant] = []
        before: dict[Hashable, Skill] = {}
        for key, strength, side, place in seats:
            if key is None:
                entrants.append(Entrant(None, bot_skill(strength or "normal"), side, place))
                continue
            record = stored.get(key)
            skill = Skill(record.mu, record.sigma) if record is not None else Skill()
            before[key] = skill
            entrants.append(Entrant(key, skill, side, place))
        after = rate(entrants)
        moved: dict[RatingKey, Moved] = {}
        for rated, new in after.items():
            assert isinstance(rated, RatingKey)
            old = before[rated]
            moved[rated] = Moved(old.mu, old.sigma, new.mu, new.sigma)
        return moved

    return decide


async def rate_game(store: Store, room: RoomRecord, result: JSON | None) -> list[RatingRecord]:
    """Book the ratings a finished game moves; nothing for unrated rooms or games without a result."""
    if not room.moves_ratings or not result:
        return []
    seats = entrants_of(room, result)
    keys = [k for k, *_ in seats if k is not None]
    if not keys or len(seats) < 2:
        return []
    return await store.book_ratings(room.id, keys, decider(seats))


async def rate_after(store: Store, room: RoomRecord, result: JSON | None) -> None:
    """``rate_game`` once the result is stored: a failure is logged, never undoes the finished game."""
    try:
        await rate_game(store, room, result)
    except Exception:
        log.exception("could not book the ratings of game %s", room.id)
