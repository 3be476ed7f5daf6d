"""The credits of a finished game: each person's XP by the rules, or the reason they earn none.

Pure, like the rest of the package: the server hands in the final snapshot, the game's events in order
(to learn when each seat went out) and, for private tables, how often each person met the others
before; it asks :func:`exits_matter` and :func:`meetings_matter` so it gathers those only when they can
change a credit. The store then books the credits (:mod:`opolyx.progression.booking`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.progression.booking import Credit
from opolyx.progression.farming import SeatFacts, refusal
from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.progression.xp import game_xp

# Leaving a game of one's own accord (going broke is playing on to the end).
LEFT = ("forfeit", "resigned")


@dataclass(frozen=True, slots=True)
class Person:
    """A seat held by a person's account (bots earn nothing and are not listed)."""

    seat: int
    user_id: str


def final_round(snap: JSON) -> int:
    """The round the finished game ended in."""
    result = snap.get("result") or {}
    return int(result.get("round") or snap.get("round") or 0)


def out_rounds(events: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """The round in which each eliminated seat went out, from the game's events in order: a
    ``player_out`` event carries no round, so the latest ``round_started``/``turn_started`` gives it."""
    current, out = 1, {}
    for event in events:
        kind = event.get("type")
        if kind in ("round_started", "turn_started") and "round" in event:
            current = int(event["round"])
        elif kind == "player_out":
            out[int(event["seat"])] = current
    return out


def exits_matter(snap: JSON, people: Sequence[Person], rules: ProgressionRules | None = None) -> bool:
    """Whether the rounds seats went out in can change a credit: only when people played a game long
    enough to pay XP at all."""
    rules = rules or load_progression()
    return bool(people) and final_round(snap) >= rules.min_round


def early_leavers(snap: JSON, out_round: Mapping[int, int], rules: ProgressionRules | None = None) -> set[int]:
    """Seats that forfeited or resigned before the pair-farming round."""
    rules = rules or load_progression()
    players = {int(p["seat"]): p for p in snap.get("players", [])}
    return {
        seat
        for seat, rnd in out_round.items()
        if players.get(seat, {}).get("out_reason") in LEFT and rnd < rules.farming.pair_early_round
    }


def meetings_matter(
    snap: JSON, out_round: Mapping[int, int], *, private: bool, rules: ProgressionRules | None = None
) -> bool:
    """Whether earlier meetings of the people at this table can refuse XP: only at a private table of
    a paying game that somebody left early."""
    rules = rules or load_progression()
    return private and final_round(snap) >= rules.min_round and bool(early_leavers(snap, out_round, rules))


def meetings_since(now: datetime, rules: ProgressionRules | None = None) -> datetime:
    """The start of the window in which earlier private games of a pair count."""
    rules = rules or load_progression()
    return now - timedelta(days=rules.farming.pair_days)


def game_credits(
    snap: JSON,
    people: Sequence[Person],
    out_round: Mapping[int, int],
    *,
    private: bool,
    meetings: Mapping[str, int] | None = None,
    rules: ProgressionRules | None = None,
) -> list[Credit]:
    """Every person's credit from this finished game, in the order of ``people``: the XP by docs/rules.md §19 unless a
    farming guard refuses it (docs/accounts.md). ``meetings`` maps a user to the most earlier private
    games they shared with any one other person here (absent: none)."""
    rules = rules or load_progression()
    result = snap.get("result") or {}
    parts = game_xp(result, snap, rules)
    players = {int(p["seat"]): p for p in snap.get("players", [])}
    game_round = final_round(snap)
    early = early_leavers(snap, out_round, rules)
    places = {int(p["seat"]): int(p["place"]) for p in result.get("placements", [])}
    meetings = meetings or {}
    out: list[Credit] = []
    for person in people:
        facts = SeatFacts(
            is_person=True,
            out_reason=players.get(person.seat, {}).get("out_reason"),
            out_round=out_round.get(person.seat),
            people_in_game=len({p.user_id for p in people}),
            game_round=game_round,
            private=private,
            pair_meetings=meetings.get(person.user_id, 0),
            early_leaver_at_table=bool(early),
        )
        why = refusal(facts, rules)
        mine = parts.get(person.seat)
        xp = mine.total if mine is not None and why is None else 0
        detail = mine.to_json() if mine is not None else {"total": 0}
        out.append(Credit(person.seat, person.user_id, xp, detail, places.get(person.seat) == 1, why))
    return out
