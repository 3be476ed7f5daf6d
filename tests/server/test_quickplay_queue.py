"""Quick play's queue rules (play/quickplay_queue.py) under a fake clock: people arrive, leave, ask for
bots now, and the queue ticks; whatever happens nobody is seated twice, nobody is passed over by a later
person with the same wishes, every table is one the people at it asked for, and bots fill a table as soon
as a person's countdown runs out."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from opolyx.server.play.quickplay_queue import Table, Ticket, match, position, seat_wishes, window

WAIT = 20.0


@dataclass
class Sim:
    """The queue as a server keeps it: tickets by person, tables formed, and when each ticket joined."""

    waiting: dict[str, Ticket] = field(default_factory=dict)
    tables: list[tuple[float, Table]] = field(default_factory=list)
    seated: dict[str, int] = field(default_factory=dict)
    left: set[str] = field(default_factory=set)

    def tick(self, now: float) -> list[Table]:
        formed = match(self.waiting.values(), now, WAIT)
        for table in formed:
            for t in table.people:
                assert self.waiting.pop(t.user) == t
                self.seated[t.user] = self.seated.get(t.user, 0) + 1
            self.tables.append((now, table))
        return formed


people = st.sampled_from([f"p{i}" for i in range(12)])
modes = st.sampled_from(["classic", "blitz", "team"])
wishes = st.one_of(st.none(), st.sampled_from([2, 3, 4, 6]))
ratings = st.sampled_from([0.0, 3.0, 15.0, 30.0])
steps = st.lists(
    st.one_of(
        st.tuples(st.just("join"), people, modes, wishes, ratings),
        st.tuples(st.just("leave"), people),
        st.tuples(st.just("bots"), people),
        st.tuples(st.just("wait"), st.floats(min_value=0.0, max_value=12.0)),
    ),
    max_size=60,
)


def _run(plan: list[tuple[object, ...]]) -> tuple[Sim, float]:
    sim, now = Sim(), 0.0
    for step in plan:
        kind = step[0]
        if kind == "join":
            _, user, mode, seats, rating = step
            assert isinstance(user, str) and isinstance(mode, str) and isinstance(rating, float)
            if user in sim.seated:
                continue  # in a game now: the server refuses a second ticket (already_in_game)
            if mode == "team" and seats not in (None, 4, 6):
                seats = 4
            assert seats is None or isinstance(seats, int)
            sim.waiting[user] = Ticket(user, mode, seat_wishes(mode, seats), "normal", now, rating)
        elif kind == "leave":
            user = str(step[1])
            if sim.waiting.pop(user, None) is not None:
                sim.left.add(user)
        elif kind == "bots":
            user = str(step[1])
            if user in sim.waiting:
                sim.waiting[user] = replace(sim.waiting[user], bots_now=True)
        else:
            delta = step[1]
            assert isinstance(delta, float)
            now += delta
        sim.tick(now)
    return sim, now


@settings(max_examples=300, deadline=None)
@given(steps)
def test_nobody_is_seated_twice_and_every_table_is_what_its_people_asked_for(plan: list[tuple[object, ...]]) -> None:
    sim, _ = _run(plan)
    assert all(n == 1 for n in sim.seated.values())
    for _, table in sim.tables:
        assert len(set(table.users)) == len(table.users)
        assert len(table.people) + table.bots == table.seats
        assert table.bots >= 0 and len(table.people) >= 1
        for t in table.people:
            assert t.mode == table.mode and table.seats in t.seats
        if table.mode == "team":
            assert table.seats in (4, 6)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_bots_fill_a_table_as_soon_as_a_countdown_runs_out(plan: list[tuple[object, ...]]) -> None:
    sim, now = _run(plan)
    # After every tick nobody is still waiting past their countdown, nor after asking for bots now.
    assert not [t for t in sim.waiting.values() if t.due(now, WAIT)]
    # And bots only ever sit at a table whose oldest person's countdown ran out (or who asked for them).
    for at, table in sim.tables:
        if table.bots:
            assert table.people[0].due(at, WAIT)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_a_later_person_with_the_same_wishes_never_goes_first(plan: list[tuple[object, ...]]) -> None:
    """FIFO within compatible tickets: when a ticket is seated, no earlier ticket with the same mode, seat
    wishes, rating and bots-now choice is left waiting."""
    sim = Sim()
    now = 0.0
    for step in plan:
        before = dict(sim.waiting)
        # Re-run one step at a time so each tick's leftovers can be compared with what it seated.
        if step[0] == "wait":
            delta = step[1]
            assert isinstance(delta, float)
            now += delta
        elif step[0] == "join":
            _, user, mode, seats, rating = step
            assert isinstance(user, str) and isinstance(mode, str) and isinstance(rating, float)
            if user in sim.seated:
                continue
            if mode == "team" and seats not in (None, 4, 6):
                seats = 4
            assert seats is None or isinstance(seats, int)
            sim.waiting[user] = Ticket(user, mode, seat_wishes(mode, seats), "normal", now, rating)
            before = dict(sim.waiting)
        elif step[0] == "leave":
            sim.waiting.pop(str(step[1]), None)
            before = dict(sim.waiting)
        else:
            user = str(step[1])
            if user in sim.waiting:
                sim.waiting[user] = replace(sim.waiting[user], bots_now=True)
            before = dict(sim.waiting)
        formed = sim.tick(now)
        seated = {t.user: t for table in formed for t in table.people}
        for s in seated.values():
            for w in before.values():
                same = (w.mode, w.seats, w.rating, w.bots_now) == (s.mode, s.seats, s.rating, s.bots_now)
                if same and w.key() < s.key():
                    assert w.user in seated, (w, s)


def test_similar_ratings_meet_first_and_anyone_meets_after_a_while() -> None:
    strong = Ticket("strong", "classic", (2,), "normal", 0.0, 30.0)
    newcomer = Ticket("new", "classic", (2,), "normal", 0.5, 0.0)
    peer = Ticket("peer", "classic", (2,), "normal", 1.0, 28.0)
    # At once: the strong player meets the similar one, not the newcomer who came earlier.
    [table] = match([strong, newcomer, peer], 1.0, WAIT)
    assert table.users == ("strong", "peer") and table.bots == 0
    # Alone with a far-off rating: no table until the window has widened enough.
    assert match([strong, newcomer], 1.0, WAIT) == []
    later = (30.0 - window(0.0)) / 1.5 + 0.1
    [table] = match([strong, newcomer], later, WAIT)
    assert set(table.users) == {"strong", "new"} and table.bots == 0


def test_a_countdown_running_out_seats_the_person_with_bots_of_their_strength() -> None:
    alone = Ticket("a", "speed", (4,), "hard", 0.0)
    assert match([alone], WAIT - 0.01, WAIT) == []
    [table] = match([alone], WAIT, WAIT)
    assert (table.seats, table.bots, table.strength, table.users) == (4, 3, "hard", ("a",))


def test_start_with_bots_takes_whoever_waits_for_the_same_table() -> None:
    a = Ticket("a", "classic", (4,), "easy", 0.0, bots_now=True)
    b = Ticket("b", "classic", (4,), "normal", 1.0, 25.0)
    c = Ticket("c", "blitz", (4,), "normal", 0.5)
    [table] = match([a, b, c], 2.0, WAIT)
    assert table.users == ("a", "b") and table.bots == 2 and table.strength == "easy"


def test_any_size_prefers_four_and_team_tables_have_four_or_six() -> None:
    assert seat_wishes("classic", None)[0] == 4
    assert set(seat_wishes("team", None)) == {4, 6}
    two = [Ticket(f"p{i}", "classic", seat_wishes("classic", None), "normal", float(i)) for i in range(2)]
    # Any size means the first table people can fill: two people play each other at once.
    [table] = match(two, 1.0, WAIT)
    assert (table.seats, table.bots, table.users) == (2, 0, ("p0", "p1"))
    # Alone past the countdown: a table of four, filled with bots.
    [table] = match(two[:1], WAIT, WAIT)
    assert (table.seats, table.bots) == (4, 3)


def test_position_counts_the_same_mode_in_waiting_order() -> None:
    tickets = [
        Ticket("a", "classic", (4,), "normal", 0.0),
        Ticket("b", "blitz", (4,), "normal", 1.0),
        Ticket("c", "classic", (4,), "normal", 2.0),
    ]
    assert position(tickets, "c") == 2 and position(tickets, "b") == 1 and position(tickets, "x") is None


@given(steps, st.sets(st.tuples(people, people).filter(lambda p: p[0] != p[1]).map(frozenset), max_size=8))
def test_two_people_one_of_whom_blocked_the_other_never_share_a_table(
    plan: list[tuple[object, ...]], blocks: set[frozenset[str]]
) -> None:
    sim, now = Sim(), 0.0
    for step in plan:
        if step[0] == "join":
            _, user, mode, seats, rating = step
            assert isinstance(user, str) and isinstance(mode, str) and isinstance(rating, float)
            if mode == "team" and seats not in (None, 4, 6):
                seats = 4
            assert seats is None or isinstance(seats, int)
            sim.waiting[user] = Ticket(user, mode, seat_wishes(mode, seats), "normal", now, rating)
        elif step[0] == "wait":
            delta = step[1]
            assert isinstance(delta, float)
            now += delta
        for table in match(sim.waiting.values(), now, WAIT, blocks):
            for t in table.people:
                sim.waiting.pop(t.user)
            users = table.users
            assert not any(frozenset((a, b)) in blocks for a in users for b in users if a != b), users


def test_a_blocked_person_waits_for_another_table_rather_than_sit_with_the_blocker() -> None:
    a = Ticket("a", "classic", (2,), "normal", 0.0)
    b = Ticket("b", "classic", (2,), "normal", 0.5)
    c = Ticket("c", "classic", (2,), "normal", 1.0)
    apart = {frozenset(("a", "b"))}
    [table] = match([a, b, c], 1.0, WAIT, apart)
    assert table.users == ("a", "c")
    # Without the block the oldest two meet: the block is what kept them apart.
    [table] = match([a, b, c], 1.0, WAIT)
    assert table.users == ("a", "b")
