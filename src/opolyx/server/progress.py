"""Progression at the table: accounts' cards and VIP into ``seat_info`` at the start, XP at the end.

The XP rules themselves are pure (opolyx.progression); this module gathers the facts they need from the
store and the game log, and hands the credits to the store, which books them in the same transaction
that stores the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from opolyx.jsontypes import JSON
from opolyx.progression import SeatFacts, game_xp, is_vip, load_progression, refusal
from opolyx.server.engine_api import EngineApi
from opolyx.storage import Credit, RoomRecord, SeatRecord, Store


async def seat_info(store: Store, mode: str, seats: Sequence[SeatRecord]) -> list[JSON]:
    """What the engine learns about each seat: name, bot, team, and for people their VIP status
    (level 10+) and collectible cards (every card; the engine keeps the best per square)."""
    out: list[JSON] = []
    for i, s in enumerate(seats):
        vip, held = False, {}
        if s.user_id is not None and not s.is_bot:
            user = await store.get_user(s.user_id)
            if user is not None:
                vip = is_vip(user.level)
                by_square: dict[str, list[str]] = {}
                for card in await store.cards_of(user.id):
                    by_square.setdefault(str(card.square), []).append(card.rarity)
                held = by_square
        out.append(
            {
                "name": s.name,
                "bot": s.is_bot,
                "team": (i % 2) if mode == "team" else None,
                "vip": vip,
                "cards": held,
            }
        )
    return out


def exits(engine: EngineApi, room: RoomRecord, log: Sequence[tuple[int | None, JSON]]) -> dict[int, int]:
    """The round in which each eliminated seat went out, read from the replayed events."""
    assert room.seed is not None
    game = engine.new_game(room.mode, len(room.seats), room.seed, seat_info=room.seat_info)
    current, out = 1, {}
    for seat, action in log:
        for event in game.apply(seat, action):
            kind = event.get("type")
            if kind in ("round_started", "turn_started") and "round" in event:
                current = int(event["round"])
            elif kind == "player_out":
                out[int(event["seat"])] = current
    return out


async def credits(
    store: Store, engine: EngineApi, room: RoomRecord, log: Sequence[tuple[int | None, JSON]], snap: JSON
) -> list[Credit]:
    """Every person's XP from this finished game, or the reason they earn none (docs/accounts.md)."""
    result = snap.get("result") or {}
    rules = load_progression()
    parts = game_xp(result, snap, rules)
    players = {int(p["seat"]): p for p in snap.get("players", [])}
    people = [s for s in room.seats if s.user_id is not None and not s.is_bot]
    game_round = int(result.get("round") or snap.get("round") or 0)
    out_round = exits(engine, room, log) if people and game_round >= rules.min_round else {}
    early = {
        seat
        for seat, rnd in out_round.items()
        if players.get(seat, {}).get("out_reason") in ("forfeit", "resigned") and rnd < rules.farming.pair_early_round
    }
    since = datetime.now(UTC) - timedelta(days=rules.farming.pair_days)
    places = {int(p["seat"]): int(p["place"]) for p in result.get("placements", [])}
    out: list[Credit] = []
    for s in people:
        assert s.user_id is not None
        others = [o.user_id for o in people if o.user_id is not None and o.user_id != s.user_id]
        meetings = 0
        if not room.public and early and game_round >= rules.min_round:
            meetings = await store.private_meetings(s.user_id, others, since)
        facts = SeatFacts(
            is_person=True,
            out_reason=players.get(s.seat, {}).get("out_reason"),
            out_round=out_round.get(s.seat),
            people_in_game=len({p.user_id for p in people}),
            game_round=game_round,
            private=not room.public,
            pair_meetings=meetings,
            early_leaver_at_table=bool(early),
        )
        why = refusal(facts, rules)
        mine = parts.get(s.seat)
        xp = mine.total if mine is not None and why is None else 0
        detail = mine.to_json() if mine is not None else {"total": 0}
        out.append(Credit(s.seat, s.user_id, xp, detail, places.get(s.seat) == 1, why))
    return out
