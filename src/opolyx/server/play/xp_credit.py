"""XP at the end of a game: gather what the progression rules need, from the game log and the store.

The rules are pure (opolyx.progression.credits); this module replays the log for the events that tell
when each seat went out, asks the store how often the people at a private table met before, and returns
the credits, which the store books in the same transaction that stores the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from opolyx.jsontypes import JSON
from opolyx.progression import Credit, Person, game_credits, load_progression, out_rounds
from opolyx.progression.credits import exits_matter, meetings_matter, meetings_since
from opolyx.rules import house
from opolyx.server.engine_api import EngineApi
from opolyx.storage import RoomRecord, Store

#: The refusal every seat of a house-rule game gets instead of XP (``xp.refused.house_rules`` in the client).
HOUSE_RULES = "house_rules"


def replayed_events(engine: EngineApi, room: RoomRecord, log: Sequence[tuple[int | None, JSON]]) -> Iterator[JSON]:
    """The game's events after its start, in order, by replaying the stored log (events are never
    stored, and the engine does not keep the round a seat went out in)."""
    assert room.seed is not None
    game = engine.new_game(
        room.mode, len(room.seats), room.seed, seat_info=room.seat_info, **house.engine_options(room.house_rules)
    )
    for seat, action in log:
        yield from game.apply(seat, action)


async def credits(
    store: Store, engine: EngineApi, room: RoomRecord, log: Sequence[tuple[int | None, JSON]], snap: JSON
) -> list[Credit]:
    """Every person's XP from this finished game, or the reason they earn none (docs/accounts.md)."""
    rules = load_progression()
    people = [Person(s.seat, s.user_id) for s in room.seats if s.user_id is not None and not s.is_bot]
    if room.house_rules:
        # A house-rule game is unrated and pays no XP (docs/rules.md "House rules"): a generous variant
        # must not become a way to farm levels. Each person still sees what the game would have paid.
        plain = game_credits(snap, people, {}, private=not room.public, meetings={}, rules=rules)
        return [dataclasses.replace(c, xp=0, won=False, refused=HOUSE_RULES) for c in plain]
    out_round = out_rounds(replayed_events(engine, room, log)) if exits_matter(snap, people, rules) else {}
    private = not room.public
    meetings: dict[str, int] = {}
    if meetings_matter(snap, out_round, private=private, rules=rules):
        since = meetings_since(datetime.now(UTC), rules)
        for p in people:
            others = [o.user_id for o in people if o.user_id != p.user_id]
            meetings[p.user_id] = await store.private_meetings(p.user_id, others, since)
    return game_credits(snap, people, out_round, private=private, meetings=meetings, rules=rules)
