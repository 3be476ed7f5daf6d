"""XP at the end of a game: gather what the progression rules need, from the game log and the store.

The rules are pure (opolyx.progression.credits); this module replays the stored log with the server's
measurements (who made each action, how long after the state it answered: measuring.py) for the events
that tell whose turn each was and when each seat went out, reads the identities seen acting for each seat
and how often the people at the table met before, and returns the credits, which the store books in the
same transaction that stores the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime

from opolyx.jsontypes import JSON
from opolyx.progression import Credit, Pace, Person, SeatPlay, Step, game_credits, load_progression, measure, out_rounds
from opolyx.progression.credits import final_round, meetings_matter, meetings_since
from opolyx.rules import house
from opolyx.server.engine_api import EngineApi
from opolyx.storage import RoomRecord, Store

#: The refusal every seat of a house-rule game gets instead of XP (``xp.refused.house_rules`` in the client).
HOUSE_RULES = "house_rules"


async def credits(
    store: Store,
    engine: EngineApi,
    room: RoomRecord,
    log: Sequence[tuple[int | None, JSON]],
    snap: JSON,
    *,
    time_scale: float = 1.0,
) -> list[Credit]:
    """Every person's XP from this finished game, or the reason they earn none (docs/accounts.md).
    ``log`` is the game as the hub holds it; the stored log (the same actions, with their measurements)
    is what the credits are measured from."""
    rules = load_progression()
    seats = [s for s in room.seats if s.user_id is not None and not s.is_bot]
    people = [Person(s.seat, str(s.user_id), agent=s.agent) for s in seats]
    if room.house_rules:
        # A house-rule game is unrated and pays no XP (docs/rules.md "House rules"): a generous variant
        # must not become a way to farm levels. Each person still sees what the game would have paid.
        plain = game_credits(snap, people, {}, play={}, rules=rules)
        return [dataclasses.replace(c, xp=0, won=False, refused=HOUSE_RULES) for c in plain]
    if not people or final_round(snap) < rules.min_round:
        return game_credits(snap, people, {}, play={}, rules=rules)
    assert room.seed is not None
    records = await store.load_actions(room.id)
    if len(records) != len(log):  # the store is behind the hub: measure what it holds of the game
        records = records[: len(log)]
    game = engine.new_game(
        room.mode, len(room.seats), room.seed, seat_info=room.seat_info, **house.engine_options(room.house_rules)
    )
    start = list(game.start_events)
    steps, events = [], list(start)
    for r in records:
        made = game.apply(r.seat, r.action)
        steps.append(Step(r.seat, r.actor, r.elapsed_ms, made))
        events.extend(made)
    out_round = out_rounds(events)
    play = measure(start, steps, Pace.of(rules, time_scale))
    # A person's seat played mostly through their API key counts as an agent's.
    people = [Person(p.seat, p.user_id, agent=p.agent or _mostly_agent(play.get(p.seat))) for p in people]
    meetings: dict[str, int] = {}
    if meetings_matter(snap, out_round, rules):
        since = meetings_since(datetime.now(UTC), rules)
        for p in people:
            others = [o.user_id for o in people if o.user_id != p.user_id]
            meetings[p.user_id] = await store.meetings(p.user_id, others, since)
    marks = await store.seat_marks_of(room.id)
    return game_credits(
        snap,
        people,
        out_round,
        play=play,
        marks=marks,
        meetings=meetings,
        pace=Pace.of(rules, time_scale),
        rules=rules,
    )


def _mostly_agent(seat: SeatPlay | None) -> bool:
    return seat is not None and seat.agent_decisions > seat.decisions
