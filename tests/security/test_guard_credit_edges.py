"""Edges of the XP rules a script would probe (issue 46): seats with no turns, a game of no rounds, one
person holding two seats, the last XP of the day, a refused agent and an empty merge.

Each case is the smallest input where a flipped comparison or a changed constant would pay someone, or
crash the credit of a whole table."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from opolyx.progression import load_progression
from opolyx.progression.booking import Credit, Standing, merged
from opolyx.progression.credits import Person, measured_xp, rounds_share, same_person_seats
from opolyx.progression.farming import NOT_PLAYED, SeatFacts, refusal
from opolyx.progression.play import Pace, SeatPlay

PACE = Pace(min_think_ms=1000, min_turn_ms=10_000, min_round_ms=25_000)


def test_a_seat_that_never_had_a_turn_earns_nothing_and_breaks_nothing() -> None:
    """A seat that went out before its first turn (or a game that ended first) has no turns to share."""
    assert measured_xp(500, SeatPlay(seat=0), PACE) == 0
    assert measured_xp(500, SeatPlay(seat=0), PACE, agent=True) == 0


def test_a_seat_whose_person_played_no_turn_earns_nothing_at_any_pace() -> None:
    """The clock played every turn: no share, and no division by the person's zero turns."""
    idle = SeatPlay(seat=1, turns=30, played=0, turn_ms=0, game_ms=900_000)
    assert measured_xp(500, idle, PACE, rounds=30) == 0
    assert measured_xp(500, idle, Pace(1000, 0, 25_000), rounds=30) == 0


def test_the_round_floor_applies_only_with_rounds_and_a_floor() -> None:
    """No round floor (an operator's choice) or no rounds counted: the turn floor alone decides."""
    human = SeatPlay(seat=0, turns=20, played=20, turn_ms=20 * 12_000, game_ms=1_000)
    assert measured_xp(400, human, Pace(1000, 10_000, 0), rounds=30) == 400
    assert measured_xp(400, human, PACE, rounds=0) == 400
    # With both, a game that lasted a second of wall time for 30 rounds pays next to nothing.
    assert measured_xp(400, human, PACE, rounds=30) == 0


def test_of_one_persons_two_seats_the_one_that_played_more_earns() -> None:
    """Same device on seats 0 and 1: seat 1 played more turns, so seat 0 is the one refused — whichever
    seat number is lower."""
    people = [Person(0, "alt"), Person(1, "main"), Person(2, "stranger")]
    marks = {0: ["device:d1"], 1: ["device:d1"], 2: ["device:d2"]}
    play = {0: SeatPlay(0, turns=30, played=3), 1: SeatPlay(1, turns=30, played=28), 2: SeatPlay(2, 30, 30)}
    assert same_person_seats(people, marks, play, left=()) == {0}
    play = {0: SeatPlay(0, turns=30, played=28), 1: SeatPlay(1, turns=30, played=3), 2: SeatPlay(2, 30, 30)}
    assert same_person_seats(people, marks, play, left=()) == {1}


def test_a_seat_with_no_count_of_played_turns_counts_as_not_played() -> None:
    """Facts built without the played turns (an older caller) must refuse, not pay."""
    facts = SeatFacts(is_person=True, out_reason=None, out_round=None, game_round=60)
    assert refusal(facts) == NOT_PLAYED
    assert refusal(SeatFacts(True, None, None, 60, played_turns=1)) is None


def test_the_last_xp_of_the_day_is_refused_once_the_cap_is_reached() -> None:
    cap = load_progression().farming.daily_xp_cap
    full = Standing(xp=5000, level=8, wins=3, drop_seed=7, xp_today=cap)
    booking = Credit(0, "u", 1, {"total": 1}, False).book(full)
    assert booking.xp == 0 and booking.refused is not None and booking.totals.xp == 5000
    # One XP short of the cap: exactly one is paid.
    almost = Standing(xp=5000, level=8, wins=3, drop_seed=7, xp_today=cap - 1)
    assert Credit(0, "u", 1, {"total": 1}, False).book(almost).xp == 1


def test_a_refused_agent_seat_books_no_points() -> None:
    """The agents' board: a refused credit books 0, an earned one its points; never people's XP."""
    standing = Standing(xp=100, level=2, wins=0, drop_seed=1)
    refused = Credit(0, "u", 300, {"total": 300}, False, NOT_PLAYED, agent=True).book(standing)
    assert refused.xp == 0 and refused.refused == NOT_PLAYED
    earned = Credit(0, "u", 300, {"total": 300}, True, None, agent=True).book(standing)
    assert earned.xp == 300 and earned.totals.xp == 100 and earned.totals.wins == 0


def test_merging_an_empty_guest_adds_nothing() -> None:
    account = Standing(xp=1234, level=4, wins=2, drop_seed=9)
    assert merged(account, 0, 0).xp == 1234
    assert merged(account, -50, 0).xp == 1234  # a corrupt negative balance takes nothing away either


def test_one_turn_and_one_round_are_measured_like_any_other() -> None:
    """The floors hold from the first turn and the first round: a one-turn seat answered at machine speed
    earns nothing, one played at a human pace earns all; a one-millisecond floor is still a floor."""
    fast = SeatPlay(seat=0, turns=1, played=1, turn_ms=0, game_ms=0)
    human = SeatPlay(seat=0, turns=1, played=1, turn_ms=12_000, game_ms=30_000)
    assert measured_xp(300, fast, PACE, rounds=1) == 0
    assert measured_xp(300, human, PACE, rounds=1) == 300
    assert measured_xp(300, SeatPlay(0, turns=1, played=1, turn_ms=12_000, game_ms=0), PACE, rounds=1) == 0
    assert measured_xp(300, fast, Pace(0, 1, 0)) == 0
    assert measured_xp(300, SeatPlay(0, turns=1, played=1, turn_ms=5, game_ms=0), Pace(0, 5, 1), rounds=4) == 0
    # No floors at all (a test server's scale of 0): the turns played decide alone.
    assert measured_xp(300, fast, Pace(0, 0, 0), rounds=1) == 300
    # Rounds not given: no round floor.
    assert measured_xp(300, SeatPlay(0, turns=1, played=1, turn_ms=12_000, game_ms=0), PACE) == 300


def test_every_group_of_one_persons_seats_is_found_whatever_the_seat_order() -> None:
    """A stranger in seat 0 (a group of one) and a pair in which one left must not hide a later pair."""
    people = [Person(s, f"u{s}") for s in range(5)]
    marks = {0: ["ip:a"], 1: ["ip:b"], 2: ["ip:b"], 3: ["device:c"], 4: ["device:c"]}
    play = {s: SeatPlay(s, turns=20, played=20 - s) for s in range(5)}
    assert same_person_seats(people, marks, play, left=()) == {2, 4}
    assert same_person_seats(people, marks, play, left=(1,)) == {1, 2, 4}
    # A seat with no record of play counts as having played nothing.
    play = {0: SeatPlay(0), 1: SeatPlay(1, turns=5, played=0), 3: SeatPlay(3, turns=5, played=1)}
    assert same_person_seats(people, marks, play, left=()) == {2, 4}
    pair = people[:2]
    shared = {0: ["ip:a"], 1: ["ip:a"]}
    assert same_person_seats(pair, shared, {1: SeatPlay(1, 5, 1)}, ()) == {0}
    assert same_person_seats(pair, shared, {1: SeatPlay(1, 5, 0)}, ()) == {1}  # a tie: the earlier seat keeps


def test_a_game_ended_by_a_resignation_pays_for_its_rounds() -> None:
    """The last opponent resigned in round 10: the game pays 10/full of its XP, with the default rules."""
    full = load_progression().farming.full_game_rounds
    snap = {"round": 10, "players": [{"seat": 0, "out_reason": None}, {"seat": 1, "out_reason": "resigned"}]}
    assert rounds_share(snap, {1: 10}) == Fraction(10, full)
    assert rounds_share({**snap, "round": full}, {1: full}) == 1
    one = dataclasses.replace(
        load_progression(), farming=dataclasses.replace(load_progression().farming, full_game_rounds=1)
    )
    assert rounds_share({**snap, "round": 0}, {1: 0}, one) == 0
