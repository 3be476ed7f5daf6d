"""Measured play: a turn counts as played only when its person made its decisions at a human pace; the
clock's, a bot's, an agent's or a script's instant answers do not (docs/accounts.md, "Against farming")."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import opolyx.engine
from opolyx.progression import Pace, Step, measure
from opolyx.progression.play import ACTORS

PACE = Pace(min_think_ms=1000, min_turn_ms=10_000)


def _turn(seat: int) -> list[dict[str, Any]]:
    return [{"type": "turn_started", "seat": seat, "round": 1}]


def test_each_kind_of_turn_is_told_apart() -> None:
    start = _turn(0)
    steps = [
        # seat 0: a person rolls after 3 s and buys after 2 s: played, and the turn lasted 5 s
        Step(0, "person", 3000, []),
        Step(0, "person", 2000, _turn(1)),
        # seat 1: the clock plays it after a timeout
        Step(None, "clock", 60_000, _turn(0)),
        # seat 0 again: a script answering in a few milliseconds
        Step(0, "person", 4, []),
        Step(0, "person", 3, _turn(1)),
        # seat 1: its AI agent plays
        Step(1, "agent", 50, _turn(0)),
        # seat 0: one decision at a human pace and a quick second click ("pay at once"), then the game ends
        Step(0, "person", 1700, []),
        Step(0, "person", 40, []),
    ]
    play = measure(start, steps, PACE)
    assert (play[0].turns, play[0].played, play[0].decisions) == (3, 2, 6)
    assert play[0].turn_ms == 5000 + 1740
    assert (play[1].turns, play[1].played, play[1].agent_turns, play[1].agent_decisions) == (2, 0, 1, 1)


def test_an_older_log_without_measurements_counts_no_turn_as_played() -> None:
    play = measure(_turn(0), [Step(0, None, None, _turn(1)), Step(1, None, None, [])], PACE)
    assert [(p.turns, p.played) for p in play.values()] == [(1, 0), (1, 0)]


def test_a_real_game_played_at_a_human_pace_counts_every_turn() -> None:
    game = opolyx.engine.new_game("blitz", 3, 11)
    start = list(game.start_events)
    rng = random.Random(2)
    steps: list[Step] = []
    began = sum(1 for e in start if e["type"] == "turn_started")
    while not game.is_over and len(steps) < 3000:
        seat = game.snapshot()["pending"][0]["seat"]
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("resign", "propose_trade")]
        events = game.apply(seat, rng.choice(legal))
        began += sum(1 for e in events if e["type"] == "turn_started")
        steps.append(Step(seat, "person", 1500, events))
    play = measure(start, steps, PACE)
    assert sum(p.turns for p in play.values()) == began
    assert all(p.played == p.turns for p in play.values())
    assert sum(p.decisions for p in play.values()) == len(steps)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3) | st.none(),
            st.sampled_from([*ACTORS, None]),
            st.integers(0, 5000) | st.none(),
            st.integers(0, 3) | st.none(),
        ),
        max_size=60,
    )
)
def test_played_turns_never_exceed_turns_and_only_people_play_them(
    raw: list[tuple[int | None, str | None, int | None, int | None]],
) -> None:
    steps = [Step(seat, actor, ms, _turn(nxt) if nxt is not None else []) for seat, actor, ms, nxt in raw]
    play = measure(_turn(0), steps, PACE)
    for p in play.values():
        assert 0 <= p.played + p.agent_turns <= p.turns
        assert p.decisions == sum(1 for s in steps if s.seat == p.seat and s.actor == "person")
    people = {s.seat for s in steps if s.actor == "person"}
    assert all(p.played == 0 for seat, p in play.items() if seat not in people)
