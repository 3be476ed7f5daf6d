"""Measured play from the farmer's side (issue 46): a script answering in milliseconds, the clock playing an
absent seat, a person clicking in someone else's turn, an agent, a log with negative or missing times, a
turn the game ended before the seat could act. None of them may count as a turn the person played, nor
stretch the wall time the credit checks; what a person did play at a human pace must count in full.
Also the table's terms notice: who is told the table pays XP."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from opolyx.progression import Pace, SeatPlay, Step, measure
from opolyx.progression.table import load_progression
from opolyx.progression.terms import AGENT_SEAT, HOUSE_RULES, table_terms

PACE = Pace(min_think_ms=1000, min_turn_ms=10_000)


def turn(seat: int) -> list[dict[str, Any]]:
    return [{"type": "turn_started", "seat": seat, "round": 1}]


def out(seat: int) -> list[dict[str, Any]]:
    return [{"type": "player_out", "seat": seat}]


def test_a_decision_exactly_at_the_floor_plays_the_turn_and_one_just_under_does_not() -> None:
    at = measure(turn(0), [Step(0, "person", 1000, turn(1))], PACE)[0]
    under = measure(turn(0), [Step(0, "person", 999, turn(1))], PACE)[0]
    assert (at.turns, at.played, at.turn_ms) == (1, 1, 1000)
    assert (under.turns, under.played, under.turn_ms) == (1, 0, 0)


def test_a_floor_of_one_millisecond_refuses_instant_answers() -> None:
    """The slowest decision starts at nothing: answers measured at 0 ms never reach a 1 ms floor."""
    play = measure(turn(0), [Step(0, "person", 0, []), Step(0, "person", 0, turn(1))], Pace(1, 0))[0]
    assert (play.turns, play.played, play.decisions) == (1, 0, 2)


def test_many_quick_clicks_never_add_up_to_one_human_decision() -> None:
    """The slowest decision counts, not their sum: ten scripted 200 ms answers are no played turn."""
    steps = [Step(0, "person", 200, []) for _ in range(9)] + [Step(0, "person", 200, turn(1))]
    play = measure(turn(0), steps, PACE)[0]
    assert (play.turns, play.played, play.decisions, play.think_ms) == (1, 0, 10, 2000)


def test_clicks_in_another_seat_s_turn_do_not_play_one_s_own() -> None:
    """Seat 1 answers slowly during seat 0's turn (a trade reply): seat 0's turn, and seat 1 played none."""
    steps = [Step(1, "person", 5000, []), Step(0, "person", 5, turn(1)), Step(1, "person", 5, turn(0))]
    play = measure(turn(0), steps, PACE)
    assert (play[0].turns, play[0].played) == (1, 0)
    assert (play[1].turns, play[1].played, play[1].decisions) == (1, 0, 2)


def test_the_clock_answers_a_turn_but_never_plays_it() -> None:
    steps = [Step(None, "clock", 60_000, turn(1)), Step(1, "person", 2000, turn(0))]
    play = measure(turn(0), steps, PACE)
    assert (play[0].turns, play[0].played, play[0].decisions) == (1, 0, 0)
    assert (play[1].turns, play[1].played) == (1, 1)


def test_a_turn_nobody_answered_is_no_turn() -> None:
    """Seat 1 goes out by seat 0's move and the game ends: seat 1 had no turn it could have played."""
    steps = [Step(0, "person", 2000, turn(1)), Step(0, "server", 0, [])]
    play = measure(turn(0), steps, PACE)
    assert play[0].turns == 1 and 1 not in play
    # Another seat's step in that turn does not answer it either; the seat's own (or the clock) does.
    assert 1 not in measure(turn(0), [Step(0, "person", 2000, turn(1)), Step(0, "person", 2000, [])], PACE)
    assert measure(turn(0), [Step(0, "person", 2000, turn(1)), Step(1, "bot", 1, [])], PACE)[1].turns == 1


def test_without_a_think_floor_a_turn_still_needs_the_person_s_own_decision() -> None:
    """Test servers scale the floor to zero: even then the clock's, a bot's or an agent's turn is not the
    person's."""
    free = Pace(min_think_ms=0, min_turn_ms=0)
    steps = [Step(None, "clock", 0, turn(1)), Step(1, "agent", 0, turn(2)), Step(2, "bot", 0, turn(0))]
    play = measure(turn(0), steps, free)
    assert [(p.turns, p.played) for p in play.values()] == [(1, 0), (1, 0), (1, 0)]
    assert play[1].agent_turns == 1
    assert measure(turn(0), [Step(0, "person", 0, turn(1))], free)[0].played == 1


def test_an_agent_plays_for_its_board_and_a_bot_for_nobody() -> None:
    steps = [Step(0, "agent", 5000, turn(1)), Step(1, "bot", 5000, turn(0))]
    play = measure(turn(0), steps, PACE)
    assert (play[0].turns, play[0].played, play[0].agent_turns, play[0].agent_decisions) == (1, 0, 1, 1)
    assert (play[0].decisions, play[0].think_ms) == (0, 0)
    assert (play[1].turns, play[1].played, play[1].agent_turns, play[1].decisions) == (1, 0, 0, 0)


def test_negative_or_missing_times_never_count() -> None:
    steps = [Step(0, "person", -50_000, []), Step(0, "person", None, turn(1)), Step(1, "person", 3000, [])]
    play = measure(turn(0), steps, PACE)
    assert (play[0].played, play[0].think_ms, play[0].turn_ms, play[0].game_ms) == (0, 0, 0, 3000)
    assert (play[1].played, play[1].turn_ms, play[1].game_ms) == (1, 3000, 3000)


def test_the_game_time_of_a_seat_stops_when_it_goes_out() -> None:
    steps = [
        Step(0, "person", 2000, []),
        Step(0, "person", 1000, out(1) + turn(0)),
        Step(0, "person", 4000, out(1)),  # told again later: the first time counts
        Step(0, "person", 1500, turn(0)),
    ]
    play = measure(turn(0), steps, PACE)
    assert play[1].game_ms == 3000 and play[0].game_ms == 8500
    # A turn's wall time runs from its first action to the action that began the next.
    assert (play[0].turns, play[0].played, play[0].turn_ms) == (2, 2, 8500)


def test_the_turn_that_began_last_among_several_events_is_the_one() -> None:
    events = [*turn(1), {"type": "turn_started", "seat": None}, *turn(2), {"type": "rolled", "seat": 1}]
    play = measure(turn(0), [Step(0, "person", 2000, events), Step(2, "person", 2000, [])], PACE)
    assert (play[2].turns, play[2].played) == (1, 1) and 1 not in play
    # No turn at the start: steps before the first turn_started count decisions, no turn.
    play = measure([], [Step(0, "person", 2000, []), Step(0, "person", 2000, turn(0))], PACE)
    assert (play[0].turns, play[0].decisions) == (0, 2)


def test_the_pace_is_the_rules_and_scales_for_tests_only() -> None:
    farming = load_progression().farming
    pace = Pace.of()
    assert (pace.min_think_ms, pace.min_turn_ms, pace.min_round_ms) == (
        farming.min_think_ms,
        farming.min_turn_seconds * 1000,
        farming.min_round_seconds * 1000,
    )
    half = Pace.of(scale=0.5)
    assert half.min_turn_ms == farming.min_turn_seconds * 500 and half.min_think_ms == farming.min_think_ms // 2
    assert half.min_round_ms == farming.min_round_seconds * 500
    # Without a pace, the rules' floor decides.
    slow = measure(turn(0), [Step(0, "person", farming.min_think_ms, turn(1))])[0]
    quick = measure(turn(0), [Step(0, "person", farming.min_think_ms - 1, turn(1))])[0]
    assert (slow.played, quick.played) == (1, 0)


def test_a_seat_nobody_played_reads_all_zeros_and_a_hand_made_pace_has_no_round_floor() -> None:
    blank = SeatPlay(3)
    assert (blank.turns, blank.played, blank.decisions, blank.think_ms, blank.turn_ms) == (0, 0, 0, 0, 0)
    assert (blank.agent_decisions, blank.agent_turns, blank.game_ms) == (0, 0, 0)
    assert PACE.min_round_ms == 0


def test_what_a_seat_played_reads_back_in_full() -> None:
    play = SeatPlay(2, turns=5, played=4, decisions=9, think_ms=100, turn_ms=200, game_ms=300)
    assert play.to_json() == {
        "turns": 5,
        "played": 4,
        "decisions": 9,
        "think_ms": 100,
        "turn_ms": 200,
        "game_ms": 300,
    }


def test_the_terms_notice_pays_only_a_person_at_a_standard_table() -> None:
    rules = load_progression()
    me = table_terms(agent=False, shared=False)
    assert (me["pays"], me["why"], me["board"], me["shared"]) == (True, None, "people", False)
    assert (me["min_round"], me["daily_cap"]) == (rules.min_round, rules.farming.daily_xp_cap)
    assert (me["min_think_ms"], me["min_turn_seconds"]) == (rules.farming.min_think_ms, rules.farming.min_turn_seconds)
    agent = table_terms(agent=True, shared=True)
    assert (agent["pays"], agent["why"], agent["board"], agent["shared"]) == (False, AGENT_SEAT, "agents", True)
    # House rules pay nobody, and say so before the agent reason.
    house = table_terms(agent=True, shared=False, house_rules=True)
    assert (house["pays"], house["why"], house["board"]) == (False, HOUSE_RULES, "agents")


def test_measured_facts_cannot_be_rewritten_in_place() -> None:
    """A step, a pace and a seat's tally are handed on to the credit as they were measured."""
    step = Step(0, "person", 10)
    for record, field in ((step, "elapsed_ms"), (PACE, "min_think_ms"), (SeatPlay(0), "played")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, 10**6)
