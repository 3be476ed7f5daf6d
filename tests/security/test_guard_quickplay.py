"""Quick play's matcher from the side of someone who would sit where they should not (issue 46): next to a
person who blocked them (also when a countdown fills the table with bots), at a table of a size or mode
they never asked for, at a table of far stronger or weaker players before the window has widened, twice
in one tick, or ahead of someone who has waited longer. Pure: tickets and a clock, no server."""

from __future__ import annotations

import dataclasses

import pytest

from opolyx.server.play.quickplay_queue import (
    WINDOW_START,
    Table,
    Ticket,
    allowed_seats,
    match,
    position,
    seat_wishes,
    window,
)

WAIT = 20.0


def t(user: str, at: float, seats: tuple[int, ...] = (2,), rating: float = 0.0, **kw: object) -> Ticket:
    mode = str(kw.pop("mode", "classic"))
    strength = str(kw.pop("strength", "normal"))
    return Ticket(user, mode, seats, strength, at, rating, **kw)  # type: ignore[arg-type]


def test_a_blocked_person_is_never_the_company_of_a_countdown_table() -> None:
    """The blocker's countdown runs out: bots fill the seat rather than the person they blocked."""
    a = t("a", 0.0, (2,), 0.0)
    b = t("b", 5.0, (2,), 29.0)  # too far in rating for a table of people at once
    apart = {frozenset(("a", "b"))}
    tables = match([a, b], WAIT, WAIT, apart)
    [first] = [x for x in tables if "a" in x.users]
    assert first.users == ("a",) and first.bots == 1
    assert all(set(x.users) != {"a", "b"} for x in tables)
    # Without the block, the countdown would have seated them together (any rating).
    [together] = match([a, b], WAIT, WAIT)
    assert together.users == ("a", "b") and together.bots == 0


def test_nobody_sits_with_someone_another_at_the_table_blocked() -> None:
    """A block between two later tickets keeps the second out even though the anchor blocked nobody."""
    a, b, c, d = (t(u, float(i), (3,)) for i, u in enumerate("abcd"))
    [table] = match([a, b, c, d], 3.0, WAIT, {frozenset(("b", "c"))})
    assert table.users == ("a", "b", "d")


def test_one_tick_never_places_a_person_twice() -> None:
    """Two anchors: the second must not take the first's companions, nor be one of them again."""
    a, b, c, d = (t(u, float(i)) for i, u in enumerate("abcd"))
    tables = match([a, b, c, d], 3.0, WAIT)
    assert [x.users for x in tables] == [("a", "b"), ("c", "d")]
    # An odd one out waits for the next tick.
    tables = match([a, b, c], 3.0, WAIT)
    assert [x.users for x in tables] == [("a", "b")]


def test_a_ticket_never_lands_at_a_table_size_it_did_not_ask_for() -> None:
    a = t("a", 0.0, (4,))
    pairs = [t("b", 1.0, (2,)), t("c", 2.0, (2,)), t("d", 3.0, (2,))]
    # Three people wanting two seats and one wanting four: the four-seat anchor gets no company.
    tables = match([a, *pairs], 3.0, WAIT)
    assert [x.users for x in tables] == [("b", "c")]
    # Its countdown: a table of four, its company only those who accept four (nobody), the rest bots.
    [late] = [x for x in match([a, *pairs], WAIT, WAIT) if "a" in x.users]
    assert (late.seats, late.users, late.bots) == (4, ("a",), 3)


def test_the_first_size_an_anchor_can_fill_is_taken_in_its_order() -> None:
    """An anchor accepting 3 or 2 (in that order) takes 3 when three can sit, else 2."""
    anchor = t("a", 0.0, (3, 2))
    b, c = t("b", 1.0, (2, 3)), t("c", 2.0, (3,))
    [table] = match([anchor, b, c], 2.0, WAIT)
    assert (table.seats, table.users) == (3, ("a", "b", "c"))
    [table] = match([anchor, b], 2.0, WAIT)
    assert (table.seats, table.users) == (2, ("a", "b"))
    # A table takes exactly its size: a fourth eager person waits.
    extra = t("d", 3.0, (3,))
    [table] = match([anchor, b, c, extra], 3.0, WAIT)
    assert table.users == ("a", "b", "c")


def test_modes_never_mix() -> None:
    a = t("a", 0.0, (2,), mode="classic")
    b = t("b", 1.0, (2,), mode="blitz")
    assert match([a, b], 2.0, WAIT) == []
    c = t("c", 2.0, (2,), mode="blitz")
    [table] = match([a, b, c], 3.0, WAIT)
    assert (table.mode, table.users) == ("blitz", ("b", "c"))


def test_the_rating_window_is_inclusive_and_widens_from_the_anchor_s_wait() -> None:
    # Five ordinal points at once, one and a half more per second waited.
    assert window(0.0) == WINDOW_START == 5.0 and window(2.0) == 8.0
    # A clock that went backwards never narrows the window below its start.
    assert window(-10.0) == WINDOW_START
    a = t("a", 0.0, (2,), 0.0)
    edge = t("b", 0.0, (2,), WINDOW_START)
    past = t("c", 0.0, (2,), WINDOW_START + 0.01)
    [table] = match([a, edge], 0.0, WAIT)  # exactly at the edge: close enough
    assert table.users == ("a", "b")
    assert match([a, past], 0.0, WAIT) == []  # just past it: not yet
    [table] = match([a, past], 1.0, WAIT)  # a second later the window has grown
    assert table.users == ("a", "c")
    # Far below counts as far as far above.
    low = t("d", 0.0, (2,), -WINDOW_START - 0.01)
    assert match([a, low], 0.0, WAIT) == []
    # The window is the anchor's wait, not the clock's reading: late in the day, a fresh anchor's is narrow.
    fresh = t("e", 1000.0, (2,), 0.0)
    far = t("f", 1000.0, (2,), 6.0)
    assert match([fresh, far], 1000.0, WAIT) == []
    [table] = match([fresh, far], 1001.0, WAIT)
    assert table.users == ("e", "f")


def test_the_countdown_seats_at_its_deadline_and_not_before() -> None:
    a = t("a", 10.0, (3,), strength="hard")
    assert match([a], 10.0 + WAIT - 0.001, WAIT) == []
    [table] = match([a], 10.0 + WAIT, WAIT)
    assert (table.seats, table.bots, table.strength, table.formed_at) == (3, 2, "hard", 10.0 + WAIT)
    assert a.due(10.0 + WAIT, WAIT) and not a.due(10.0 + WAIT - 0.001, WAIT)
    assert t("b", 10.0, bots_now=True).due(10.0, WAIT)


def test_start_with_bots_takes_company_of_any_rating_up_to_its_size() -> None:
    a = t("a", 0.0, (3,), 0.0, bots_now=True, strength="easy")
    far = t("b", 1.0, (3,), 30.0)
    also = t("c", 2.0, (3,), -30.0)
    extra = t("d", 3.0, (3,), 30.0)
    [table] = match([a, far, also, extra], 3.0, WAIT)
    # Full of people, so no bots at all: the three oldest that accept three seats.
    assert (table.users, table.bots, table.strength) == (("a", "b", "c"), 0, "easy")
    [table] = match([a, far], 1.0, WAIT)
    assert (table.users, table.bots, table.strength) == (("a", "b"), 1, "easy")


def test_waiting_order_is_by_time_then_id() -> None:
    late, early = t("b", 0.0), t("a", 0.0)
    # Same moment: the id breaks the tie, whatever order they come in.
    [table] = match([late, early, t("c", 0.0)], 0.0, WAIT)
    assert table.users == ("a", "b")
    assert position([late, early], "a") == 1 and position([late, early], "b") == 2
    assert position([t("x", 5.0), t("y", 1.0, mode="blitz"), t("z", 2.0)], "x") == 2


def test_sizes_each_mode_allows() -> None:
    assert allowed_seats("team") == (4, 6) and allowed_seats("classic") == (2, 3, 4, 5, 6)
    assert seat_wishes("team", None) == (4, 6)
    # Any size: four first, then three, five, two and six.
    assert seat_wishes("classic", None) == (4, 3, 5, 2, 6)
    assert seat_wishes("classic", 3) == (3,)


def test_a_ticket_survives_its_trip_through_shared_storage() -> None:
    full = t("a", 1.5, (4, 6), 12.5, bots_now=True, mode="team", strength="hard", name="Ann", agent=True)
    assert Ticket.from_json(full.to_json()) == full
    bare = Ticket.from_json({"user": "b", "mode": "classic", "seats": [2], "strength": "easy", "at": 3})
    assert (bare.rating, bare.bots_now, bare.name, bare.agent) == (0.0, False, "", False)
    assert Table("classic", 2, (full, bare)).users == ("a", "b")
    # Made in code without saying so, a ticket is a newcomer's (ordinal 0) and a person's, not an agent's;
    # a table has no bots and no formation time.
    plain = Ticket("c", "classic", (2,), "normal", 0.0)
    assert (plain.rating, plain.bots_now, plain.agent) == (0.0, False, False)
    made = Table("classic", 2, (plain,))
    assert (made.bots, made.strength, made.formed_at) == (0, "normal", 0.0)


def test_a_ticket_or_a_table_cannot_be_changed_once_made() -> None:
    """The queue hands the same tickets to every tick (and, in a cluster, to the store): nothing may
    rewrite one's rating, time or wishes in place."""
    ticket = t("a", 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ticket.rating = 99.0  # type: ignore[misc]
    table = Table("classic", 2, (ticket,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.bots = 0  # type: ignore[misc]
