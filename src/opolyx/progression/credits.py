"""The credits of a finished game: each person's XP by the rules, or the reason they earn none.

Pure, like the rest of the package: the server hands in the final snapshot, the game's events in order
(to learn when each seat went out), the play it measured per seat (opolyx.progression.play), the
identities seen acting for each seat, and how often each person met the others before; it asks
:func:`exits_matter` and :func:`meetings_matter` so it gathers those only when they can change a credit.
The store then books the credits (:mod:`opolyx.progression.booking`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.progression.booking import Credit
from opolyx.progression.farming import SeatFacts, refusal
from opolyx.progression.play import Pace, SeatPlay
from opolyx.progression.table import ProgressionRules, load_progression
from opolyx.progression.xp import game_xp

# Leaving a game of one's own accord (going broke is playing on to the end).
LEFT = ("forfeit", "resigned")


@dataclass(frozen=True, slots=True)
class Person:
    """A seat held by a person's account (bots earn nothing and are not listed)."""

    seat: int
    user_id: str
    # Taken or played through the person's API key: an AI agent plays it (the agents' board).
    agent: bool = False


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


def meetings_matter(snap: JSON, out_round: Mapping[int, int], rules: ProgressionRules | None = None) -> bool:
    """Whether earlier meetings of the people at this table can refuse XP: only in a paying game that
    somebody left early (public tables too: a fresh public room once escaped the rule)."""
    rules = rules or load_progression()
    return final_round(snap) >= rules.min_round and bool(early_leavers(snap, out_round, rules))


def meetings_since(now: datetime, rules: ProgressionRules | None = None) -> datetime:
    """The start of the window in which earlier games of a pair count."""
    rules = rules or load_progression()
    return now - timedelta(days=rules.farming.pair_days)


def same_person_seats(
    people: Sequence[Person],
    marks: Mapping[int, Iterable[str]],
    play: Mapping[int, SeatPlay],
    left: Iterable[int],
) -> set[int]:
    """Seats refused because another seat at the table is the same person: seats sharing any mark (the
    account, a session, an address, a device) form one person. Of one person's seats only the one that
    played the most turns may earn (ties: the earlier seat), and none when one of them left the game of
    its own accord (the puppet that resigns so the other wins)."""
    seats = [p.seat for p in people]
    parent = {s: s for s in seats}

    def find(s: int) -> int:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    owner: dict[str, int] = {}
    for p in people:
        for mark in {f"user:{p.user_id}", *marks.get(p.seat, ())}:
            if mark in owner:
                parent[find(p.seat)] = find(owner[mark])
            else:
                owner[mark] = p.seat
    groups: dict[int, list[int]] = {}
    for s in seats:
        groups.setdefault(find(s), []).append(s)
    leavers = set(left)
    refused: set[int] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        if leavers & set(group):
            refused.update(group)
            continue
        keep = min(group, key=lambda s: (-_played(play.get(s)), s))
        refused.update(s for s in group if s != keep)
    return refused


def _played(seat: SeatPlay | None, *, agent: bool = False) -> int:
    if seat is None:
        return 0
    return seat.agent_turns if agent else seat.played


def measured_xp(total: int, seat: SeatPlay, pace: Pace, *, agent: bool = False, rounds: int = 0) -> int:
    """A seat's XP for the turns its person played: the rules' amount times the share of its turns they
    played and, for people, times how far the play reached the plausible wall times: each played turn
    ``pace.min_turn_ms``, the game ``pace.min_round_ms`` per round the seat was in it (``rounds``). A
    person who plays every turn at a human pace gets exactly the amount."""
    if seat.turns <= 0:
        return 0
    played = _played(seat, agent=agent)
    share = Fraction(min(played, seat.turns), seat.turns)
    if not agent and played > 0:
        if pace.min_turn_ms > 0:
            share *= min(Fraction(1), Fraction(seat.turn_ms, played * pace.min_turn_ms))
        if pace.min_round_ms > 0 and rounds > 0:
            share *= min(Fraction(1), Fraction(seat.game_ms, rounds * pace.min_round_ms))
    return int(total * share)


def ended_by_leaving(snap: JSON, out_round: Mapping[int, int]) -> bool:
    """Whether the game ended because players left it of their own accord in its last round (the last
    opponent resigned or forfeited), not by bankruptcy or the round limit."""
    players = {int(p["seat"]): p for p in snap.get("players", [])}
    last = final_round(snap)
    return any(players.get(s, {}).get("out_reason") in LEFT and r == last for s, r in out_round.items())


def rounds_share(snap: JSON, out_round: Mapping[int, int], rules: ProgressionRules | None = None) -> Fraction:
    """What share of its XP a game pays for its length: all of it, unless the last opponents ended it by
    leaving before ``full_game_rounds`` (a puppet resigning in round 10 so its partner wins a short game):
    then the rounds played over that many. Without it, a short game won by a resign paid like a full one,
    and resigning early was the fastest XP there was."""
    rules = rules or load_progression()
    full = rules.farming.full_game_rounds
    last = final_round(snap)
    if full <= 0 or last >= full or not ended_by_leaving(snap, out_round):
        return Fraction(1)
    return Fraction(last, full)


def game_credits(
    snap: JSON,
    people: Sequence[Person],
    out_round: Mapping[int, int],
    *,
    play: Mapping[int, SeatPlay],
    marks: Mapping[int, Iterable[str]] | None = None,
    meetings: Mapping[str, int] | None = None,
    pace: Pace | None = None,
    rules: ProgressionRules | None = None,
) -> list[Credit]:
    """Every person's credit from this finished game, in the order of ``people``: the XP by docs/rules.md
    §19 for the turns they played (``play``, measured by the server) unless a farming guard refuses it
    (docs/accounts.md). ``marks`` are the identities seen acting for each seat (sessions, addresses,
    devices); ``meetings`` maps a user to the most earlier games they shared with any one other person here
    (absent: none). An agent's seat earns for the agents' board (``Credit.agent``), never a person's XP."""
    rules = rules or load_progression()
    pace = pace or Pace.of(rules)
    result = snap.get("result") or {}
    parts = game_xp(result, snap, rules)
    players = {int(p["seat"]): p for p in snap.get("players", [])}
    game_round = final_round(snap)
    early = early_leavers(snap, out_round, rules)
    places = {int(p["seat"]): int(p["place"]) for p in result.get("placements", [])}
    meetings = meetings or {}
    left = [p.seat for p in people if players.get(p.seat, {}).get("out_reason") in LEFT]
    twins = same_person_seats(people, marks or {}, play, left)
    length = rounds_share(snap, out_round, rules)
    out: list[Credit] = []
    for person in people:
        seat = play.get(person.seat) or SeatPlay(person.seat)
        facts = SeatFacts(
            is_person=True,
            out_reason=players.get(person.seat, {}).get("out_reason"),
            out_round=out_round.get(person.seat),
            game_round=game_round,
            played_turns=_played(seat, agent=person.agent),
            same_person=person.seat in twins,
            pair_meetings=meetings.get(person.user_id, 0),
            early_leaver_at_table=bool(early),
        )
        why = refusal(facts, rules)
        mine = parts.get(person.seat)
        detail: JSON = mine.to_json() if mine is not None else {"total": 0}
        xp = 0
        if mine is not None:
            detail["turns"], detail["played"] = seat.turns, facts.played_turns
            if why is None:
                rounds = out_round.get(person.seat, game_round)
                xp = int(measured_xp(mine.total, seat, pace, agent=person.agent, rounds=rounds) * length)
                if length < 1:
                    detail["ended_by_leaving"] = True
                if xp < mine.total:
                    detail["reduced_from"] = mine.total
        won = places.get(person.seat) == 1
        out.append(Credit(person.seat, person.user_id, xp, detail, won, why, agent=person.agent))
    return out
