"""Booking a credit to an account: the daily cap (1500 XP per UTC day), levels that never go down, the
cards of every drop level passed, and wins only for paid seats; merging a guest the same way."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opolyx.progression import Credit, Standing, draw_card, drop_levels_between, level_for, merged

CAP = 1500
NEW = Standing(xp=0, level=1, wins=0, drop_seed=42)


def _credit(xp: int, *, won: bool = False, refused: str | None = None) -> Credit:
    return Credit(0, "a", xp, {"total": xp}, won, refused)


def test_a_first_game_books_its_xp_level_drop_and_win() -> None:
    booking = _credit(325, won=True).book(NEW)
    assert (booking.xp, booking.refused, booking.level_before) == (325, None, 1)
    assert booking.parts == {"total": 325}
    totals = booking.totals
    assert (totals.xp, totals.level, totals.wins) == (325, 3, 1)
    assert totals.drops == (draw_card(42, 3),)


def test_the_cap_cuts_what_is_left_of_the_day_then_refuses() -> None:
    cut = _credit(155).book(Standing(1395, level_for(1395), 0, 7, xp_today=1395))
    assert (cut.xp, cut.refused, cut.parts["capped_from"]) == (105, None, 155)
    assert cut.totals.xp == 1500
    none_left = _credit(155, won=True).book(Standing(1500, level_for(1500), 3, 7, xp_today=CAP))
    assert (none_left.xp, none_left.refused, none_left.parts["capped_from"]) == (0, "daily_cap", 155)
    assert none_left.totals.wins == 3, "a win past the cap is not counted"


def test_a_refused_credit_pays_nothing_and_counts_no_win() -> None:
    booking = _credit(0, won=True, refused="pair_farming").book(Standing(100, 2, 5, 7, xp_today=2000))
    assert (booking.xp, booking.refused, booking.parts) == (0, "pair_farming", {"total": 0})
    assert (booking.totals.xp, booking.totals.level, booking.totals.wins, booking.totals.drops) == (100, 2, 5, ())


def test_a_stored_level_above_the_xp_is_kept() -> None:
    booking = _credit(10).book(Standing(0, 4, 0, 7))
    assert booking.totals.level == 4 and booking.totals.drops == ()


@given(
    st.integers(min_value=0, max_value=130_000),
    st.integers(min_value=0, max_value=3000),
    st.integers(min_value=0, max_value=2000),
    st.integers(min_value=0, max_value=2**62),
)
def test_booking_is_exact(xp: int, today: int, earned: int, seed: int) -> None:
    level = level_for(xp)
    booking = _credit(earned).book(Standing(xp, level, 0, seed, xp_today=today))
    assert booking.xp == min(earned, max(0, CAP - today))
    assert booking.totals.xp == xp + booking.xp
    assert booking.totals.level == level_for(xp + booking.xp)
    assert [d.level for d in booking.totals.drops] == drop_levels_between(level, booking.totals.level)
    assert all(d == draw_card(seed, d.level) for d in booking.totals.drops)


def test_merging_a_guest_adds_xp_and_wins_and_draws_the_account_s_cards() -> None:
    totals = merged(Standing(200, 2, 0, 9), 320, 1)
    assert (totals.xp, totals.level, totals.wins) == (520, 3, 1)
    assert totals.drops == (draw_card(9, 3),)


def test_a_merge_adds_only_what_is_left_of_the_day_s_cap() -> None:
    """The issue's farmer: six capped guests merged one after another into a fresh account. The first
    brings the cap's 1500, the others nothing more that day; the cards are the schedule's for level 6."""
    account = NEW
    added = []
    for _ in range(6):
        totals = merged(account, 1500, 0)
        added.append(totals.xp - account.xp)
        drops = totals.drops
        account = Standing(totals.xp, totals.level, totals.wins, 42, xp_today=account.xp_today + added[-1])
        assert all(d == draw_card(42, d.level) for d in drops)
    assert added == [1500, 0, 0, 0, 0, 0]
    assert (account.xp, account.level) == (1500, level_for(1500)) == (1500, 6)


def test_a_zero_xp_account_absorbing_a_1500_xp_guest_ends_with_the_schedule_s_cards() -> None:
    totals = merged(NEW, 1500, 2)
    assert (totals.xp, totals.level, totals.wins) == (1500, 6, 2)
    assert [d.level for d in totals.drops] == [3, 5], "level 6 gives two cards, never the sum of both sides'"


@given(
    st.integers(min_value=0, max_value=130_000),
    st.integers(min_value=0, max_value=3000),
    st.integers(min_value=0, max_value=200_000),
    st.integers(min_value=0, max_value=2**62),
)
def test_a_merge_keeps_the_cap_and_the_drop_schedule(xp: int, today: int, guest_xp: int, seed: int) -> None:
    level = level_for(xp)
    totals = merged(Standing(xp, level, 0, seed, xp_today=today), guest_xp, 0)
    assert totals.xp - xp == min(guest_xp, max(0, CAP - today))
    assert totals.level == level_for(totals.xp)
    assert [d.level for d in totals.drops] == drop_levels_between(level, totals.level)
    assert all(d == draw_card(seed, d.level) for d in totals.drops)


@pytest.mark.parametrize(
    ("now", "start"),
    [
        (datetime(2026, 3, 1, 23, 59, 59, 999_999, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)),
        (datetime(2026, 3, 2, 0, 0, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC)),
    ],
)
def test_the_cap_counts_from_the_start_of_the_utc_day(now: datetime, start: datetime) -> None:
    assert Credit.cap_since(now) == start
