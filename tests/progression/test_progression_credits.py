"""A finished game's credits from its final state and events: out-rounds read from the events, XP by
placement, groups and survival, each farming guard's refusal, and when exits and meetings matter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import opolyx.engine
from opolyx.progression import game_xp
from opolyx.progression.credits import (
    Person,
    early_leavers,
    exits_matter,
    final_round,
    game_credits,
    meetings_matter,
    meetings_since,
    out_rounds,
)

A, B, C = Person(0, "a"), Person(1, "b"), Person(2, "c")


def _snap(round_: int, *, out: dict[int, str] | None = None) -> dict[str, Any]:
    """A three-seat finished game in round ``round_``: seat 0 wins, nobody holds a group; ``out`` maps
    eliminated seats to their reason (they place after the survivors)."""
    out = out or {}
    order = [s for s in range(3) if s not in out] + sorted(out, reverse=True)
    placements = [{"seat": s, "place": i, "out": s in out} for i, s in enumerate(order, start=1)]
    players = [{"seat": s, "out_reason": out.get(s)} for s in range(3)]
    squares = [{"index": i, "owner": None} for i in range(40)]
    result = {"round": round_, "placements": placements}
    return {"round": round_, "players": players, "squares": squares, "result": result}


def test_out_rounds_come_from_the_round_events_before_each_exit() -> None:
    events = [
        {"type": "turn_started", "seat": 0, "round": 1},
        {"type": "player_out", "seat": 2, "reason": "resigned"},
        {"type": "round_started", "round": 4},
        {"type": "turn_started", "seat": 1},  # no round: the round stays 4
        {"type": "player_out", "seat": 1, "reason": "bankrupt"},
    ]
    assert out_rounds(events) == {2: 1, 1: 4}
    assert out_rounds([]) == {}


def test_out_rounds_of_a_real_game_are_the_rounds_seats_resigned_in() -> None:
    game = opolyx.engine.new_game("classic", 3, 5)
    events: list[dict[str, Any]] = list(game.start_events)
    resigns = {2: 3, 1: 12}
    keep_moving = ("buy", "roll", "pay", "jail_roll", "decline")
    while not game.is_over:
        snap = game.snapshot()
        due = [s for s, r in resigns.items() if snap["round"] >= r and not snap["players"][s]["out"]]
        if due:
            seat, action = due[0], {"type": "resign"}
        else:
            seat = snap["pending"][0]["seat"]
            legal = game.legal_actions(seat)
            action = min(legal, key=lambda a: keep_moving.index(a["type"]) if a["type"] in keep_moving else 99)
        events += game.apply(seat, action)
        assert len(events) < 100_000
    assert out_rounds(events) == resigns


def test_a_fair_public_game_pays_every_person_by_the_rules() -> None:
    snap = _snap(30)
    credits = game_credits(snap, [A, B, C], {}, private=False)
    xp = game_xp(snap["result"], snap)
    assert [(c.seat, c.user_id, c.xp, c.refused, c.won) for c in credits] == [
        (0, "a", 100 + 25, None, True),
        (1, "b", 60 + 25, None, False),
        (2, "c", 40 + 25, None, False),
    ]
    assert [c.parts for c in credits] == [xp[s].to_json() for s in range(3)]


def test_a_short_game_pays_nothing_and_needs_no_exits() -> None:
    snap = _snap(9)
    assert not exits_matter(snap, [A, B])
    assert [(c.xp, c.refused, c.parts) for c in game_credits(snap, [A, B], {}, private=False)] == [
        (0, "short_game", {"total": 0}),
        (0, "short_game", {"total": 0}),
    ]


def test_exits_matter_only_with_people_in_a_paying_game() -> None:
    assert exits_matter(_snap(10), [A])
    assert not exits_matter(_snap(30), [])


def test_an_early_exit_earns_nothing_while_the_others_earn() -> None:
    snap = _snap(30, out={2: "forfeit"})
    credits = game_credits(snap, [A, B, C], {2: 3}, private=False)
    assert [(c.seat, c.refused) for c in credits] == [(0, None), (1, None), (2, "early_exit")]
    assert credits[0].xp == 125 and credits[2].xp == 0 and credits[2].parts["place"] == 3


def test_one_person_alone_with_bots_earns_nothing() -> None:
    (credit,) = game_credits(_snap(30), [A], {}, private=False)
    assert (credit.xp, credit.refused) == (0, "too_few_people")


def test_pair_farming_needs_a_private_table_an_early_leaver_and_repeated_meetings() -> None:
    snap = _snap(30, out={2: "resigned"})
    exits = {2: 2}
    assert early_leavers(snap, exits) == {2}
    assert meetings_matter(snap, exits, private=True)
    assert not meetings_matter(snap, exits, private=False)
    assert not meetings_matter(_snap(30, out={2: "bankrupt"}), exits, private=True)
    assert not meetings_matter(_snap(9, out={2: "resigned"}), exits, private=True)
    farmed = game_credits(snap, [A, B, C], exits, private=True, meetings={"a": 2, "b": 1, "c": 2})
    assert [(c.seat, c.refused) for c in farmed] == [(0, "pair_farming"), (1, None), (2, "early_exit")]
    public = game_credits(snap, [A, B, C], exits, private=False, meetings={"a": 2, "b": 2})
    assert [c.refused for c in public] == [None, None, "early_exit"]


def test_final_round_and_the_meetings_window() -> None:
    assert final_round({"round": 7}) == 7
    assert final_round({"round": 7, "result": {"round": 12}}) == 12
    assert final_round({}) == 0
    now = datetime(2026, 3, 8, 12, tzinfo=UTC)
    assert meetings_since(now) == now - timedelta(days=7)
