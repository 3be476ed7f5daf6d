"""A finished game's credits from its final state and events: out-rounds read from the events, XP by
placement, groups and survival, each farming guard's refusal, and when exits and meetings matter."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import opolyx.engine
from opolyx.progression import Pace, SeatPlay, game_xp
from opolyx.progression.credits import (
    Person,
    early_leavers,
    exits_matter,
    final_round,
    game_credits,
    measured_xp,
    meetings_matter,
    meetings_since,
    out_rounds,
    same_person_seats,
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


def _honest(*seats: int, turns: int = 30) -> dict[int, SeatPlay]:
    """Every turn of these seats played by its person at a human pace."""
    return {
        s: SeatPlay(s, turns, turns, 2 * turns, 4000 * turns, 12_000 * turns, game_ms=30 * 25_000) for s in seats
    }


def test_a_fair_public_game_pays_every_person_by_the_rules() -> None:
    snap = _snap(30)
    credits = game_credits(snap, [A, B, C], {}, play=_honest(0, 1, 2))
    xp = game_xp(snap["result"], snap)
    assert [(c.seat, c.user_id, c.xp, c.refused, c.won) for c in credits] == [
        (0, "a", 100 + 25, None, True),
        (1, "b", 60 + 25, None, False),
        (2, "c", 40 + 25, None, False),
    ]
    assert [c.parts for c in credits] == [dict(xp[s].to_json(), turns=30, played=30) for s in range(3)]


def test_a_short_game_pays_nothing_and_needs_no_exits() -> None:
    snap = _snap(9)
    assert not exits_matter(snap, [A, B])
    assert [(c.xp, c.refused, c.parts) for c in game_credits(snap, [A, B], {}, play=_honest(0, 1))] == [
        (0, "short_game", {"total": 0}),
        (0, "short_game", {"total": 0}),
    ]


def test_exits_matter_only_with_people_in_a_paying_game() -> None:
    assert exits_matter(_snap(10), [A])
    assert not exits_matter(_snap(30), [])


def test_an_early_exit_earns_nothing_while_the_others_earn() -> None:
    snap = _snap(30, out={2: "forfeit"})
    credits = game_credits(snap, [A, B, C], {2: 3}, play=_honest(0, 1, 2))
    assert [(c.seat, c.refused) for c in credits] == [(0, None), (1, None), (2, "early_exit")]
    assert credits[0].xp == 125 and credits[2].xp == 0 and credits[2].parts["place"] == 3


def test_one_person_alone_with_bots_earns_the_rules_amount() -> None:
    """docs/rules.md §19: every seat of a person earns; only bots earn nothing (seats 1 and 2 are bots)."""
    (credit,) = game_credits(_snap(30), [A], {}, play=_honest(0, 1, 2))
    assert (credit.xp, credit.refused, credit.won) == (125, None, True)


def test_a_seat_nobody_played_earns_nothing() -> None:
    """The alt that idles beside a bot: the clock played all its turns."""
    idle = {0: SeatPlay(0, turns=30, game_ms=30 * 25_000), **_honest(1)}
    credits = game_credits(_snap(30), [A, B], {}, play=idle)
    assert [(c.xp, c.refused) for c in credits] == [(0, "not_played"), (85, None)]


def test_xp_follows_the_share_of_turns_played_and_the_pace() -> None:
    long = 30 * 25_000
    half = SeatPlay(0, turns=30, played=15, decisions=30, think_ms=60_000, turn_ms=15 * 12_000, game_ms=long)
    rushed = SeatPlay(0, turns=30, played=30, decisions=60, think_ms=60_000, turn_ms=30 * 2_500, game_ms=long)
    hurried = dataclasses.replace(_honest(0)[0], game_ms=long // 2)
    pace = Pace(min_think_ms=1000, min_turn_ms=10_000, min_round_ms=25_000)
    assert measured_xp(125, half, pace, rounds=30) == 62
    assert measured_xp(125, rushed, pace, rounds=30) == 31, "turns four times faster than the floor pay a quarter"
    assert measured_xp(125, hurried, pace, rounds=30) == 62, "a game in half the plausible time pays half"
    assert measured_xp(125, _honest(0)[0], pace, rounds=30) == 125
    (credit,) = game_credits(_snap(30), [A], {}, play={0: rushed})
    assert (credit.xp, credit.parts["reduced_from"]) == (31, 125)


def test_two_seats_of_one_person_earn_once_and_never_beside_their_own_resign() -> None:
    snap = _snap(30)
    play = {0: _honest(0)[0], 1: SeatPlay(1, turns=30, played=10, decisions=20, think_ms=40_000, turn_ms=120_000)}
    marks = {0: ["addr:x"], 1: ["addr:x", "device:d"], 2: ["device:e"]}
    credits = game_credits(snap, [A, B, C], {}, play={**play, **_honest(2)}, marks=marks)
    assert [(c.seat, c.refused) for c in credits] == [(0, None), (1, "same_person"), (2, None)]
    resigned = _snap(30, out={1: "resigned"})
    credits = game_credits(resigned, [A, B], {1: 12}, play=play, marks=marks)
    assert [c.refused for c in credits] == ["same_person", "same_person"], "the puppet's resign pays nobody"
    assert same_person_seats([A, B], {}, play, []) == set(), "different accounts, nothing shared: two people"


def test_an_agents_seat_earns_for_the_agents_board() -> None:
    bot_like = SeatPlay(0, turns=30, agent_decisions=60, agent_turns=30)
    (credit,) = game_credits(_snap(30), [Person(0, "a", agent=True)], {}, play={0: bot_like})
    assert (credit.agent, credit.xp, credit.refused) == (True, 125, None)


def test_pair_farming_needs_an_early_leaver_and_repeated_meetings() -> None:
    snap = _snap(30, out={2: "resigned"})
    exits = {2: 2}
    assert early_leavers(snap, exits) == {2}
    assert meetings_matter(snap, exits)
    assert not meetings_matter(_snap(30, out={2: "bankrupt"}), exits)
    assert not meetings_matter(_snap(9, out={2: "resigned"}), exits)
    farmed = game_credits(snap, [A, B, C], exits, play=_honest(0, 1, 2), meetings={"a": 2, "b": 1, "c": 2})
    assert [(c.seat, c.refused) for c in farmed] == [(0, "pair_farming"), (1, None), (2, "early_exit")]


def test_a_short_game_ended_by_a_resign_pays_for_the_rounds_it_lasted() -> None:
    """The puppet resigning in round 10 so its partner wins: a game the last opponent ended by leaving
    before round 25 pays rounds/25 of its XP; bankruptcy or a later resign ends a game in full."""
    resigned = _snap(10, out={1: "resigned", 2: "resigned"})
    credits = game_credits(resigned, [A, B], {1: 10, 2: 4}, play=_honest(0, 1, 2))
    assert [(c.xp, c.parts.get("ended_by_leaving")) for c in credits] == [(125 * 10 // 25, True), (40 * 10 // 25, True)]
    broke = _snap(10, out={1: "bankrupt", 2: "bankrupt"})
    assert [c.xp for c in game_credits(broke, [A, B], {1: 10, 2: 9}, play=_honest(0, 1, 2))] == [125, 40]
    late = _snap(26, out={1: "resigned", 2: "bankrupt"})
    assert [c.xp for c in game_credits(late, [A, B], {1: 26, 2: 20}, play=_honest(0, 1, 2))] == [125, 40]
    earlier = _snap(20, out={1: "resigned", 2: "bankrupt"})  # resigned in an earlier round: the game went on
    assert [c.xp for c in game_credits(earlier, [A, B], {1: 12, 2: 20}, play=_honest(0, 1, 2))] == [125, 40]


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(0, 300),
    turns=st.integers(1, 60),
    played=st.integers(0, 60),
    turn_ms=st.integers(0, 2_000_000),
    min_turn_ms=st.integers(0, 30_000),
)
def test_measured_xp_never_exceeds_the_rules_and_pays_them_for_honest_play(
    total: int, turns: int, played: int, turn_ms: int, min_turn_ms: int
) -> None:
    played = min(played, turns)
    pace = Pace(1000, min_turn_ms, 2 * min_turn_ms)
    rounds = turns
    game_ms = turn_ms * 2
    seat = SeatPlay(0, turns=turns, played=played, turn_ms=turn_ms, game_ms=game_ms)
    xp = measured_xp(total, seat, pace, rounds=rounds)
    assert 0 <= xp <= total
    if played == turns and turn_ms >= played * min_turn_ms:
        assert xp == total
    slower = SeatPlay(0, turns=turns, played=played, turn_ms=turn_ms + 1000, game_ms=game_ms + 2000)
    assert measured_xp(total, slower, pace, rounds=rounds) >= xp, "playing slower never pays less"
    more = SeatPlay(
        0, turns=turns, played=min(turns, played + 1), turn_ms=turn_ms + min_turn_ms, game_ms=game_ms + 2 * min_turn_ms
    )
    assert measured_xp(total, more, pace, rounds=rounds) >= xp, "playing one more turn at the floor never pays less"


def test_final_round_and_the_meetings_window() -> None:
    assert final_round({"round": 7}) == 7
    assert final_round({"round": 7, "result": {"round": 12}}) == 12
    assert final_round({}) == 0
    now = datetime(2026, 3, 8, 12, tzinfo=UTC)
    assert meetings_since(now) == now - timedelta(days=7)
