"""More time to pay (issue #45, docs/accessibility.md): a player in their own pay step may ask once per debt
for the clock to grow by the mode's pay-step time. SPEC.md sets that clock as a minimum ("at least 75 s");
every other clock stays as the rules say. Refusals come as error frames and change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server_kit import Person
from test_server_clocks import Now, snap

from live_server import ThreadServer
from opolyx.rules import load_cards
from opolyx.server.play.clocks import ClockBook
from rigged_engine import RiggedEngine

# The bot starts, rolls 6 + 1 onto an event square and draws the birthday card: Ann owes it 200 at once.
BIRTHDAY = {
    "first_player": 1,
    "dice": [(6, 1)],
    "deck": ["birthday", *(card.id for card in load_cards() if card.id != "birthday")],
}


def test_the_clock_book_lengthens_only_a_pay_clock_of_that_seat_and_only_once() -> None:
    now = Now()
    book = ClockBook(now=now)
    book.sync(snap((0, "turn", "turn:1", 75)))
    assert book.lengthen_pay(0, 75) is None  # a turn clock is a rule: never lengthened
    book.sync(snap((1, "pay", "pay:2", 75)))
    assert book.lengthen_pay(0, 75) is None  # someone else's pay step
    clock = book.lengthen_pay(1, 75)
    assert clock is not None and clock.deadline == 1150 and clock.total == 150
    assert book.lengthen_pay(1, 75) is None  # once per debt
    assert book.public()[0]["seconds"] == 150
    book.sync(snap((1, "pay", "pay:3", 75)))  # the next debt may be lengthened again
    assert book.lengthen_pay(1, 75) is not None


def _room_with_ann_owing(srv: ThreadServer, ann: Person) -> dict[str, Any]:
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    while True:
        ann.send({"type": "sync"})
        frame = ann.recv_until("snapshot")
        if any(d["kind"] == "pay" and d["seat"] == 0 for d in frame["deadlines"]):
            return frame


def test_a_player_gets_more_time_once_in_their_own_pay_step(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(engine=lambda: RiggedEngine(**BIRTHDAY))
    ann = Person(srv.base, "Ann")
    try:
        before = _room_with_ann_owing(srv, ann)
        pay = next(d for d in before["deadlines"] if d["kind"] == "pay")
        ann.send({"type": "more_time", "ref": "m1"})
        after = ann.recv_until("snapshot", ref="m1")
        longer = next(d for d in after["deadlines"] if d["id"] == pay["id"])
        assert longer["seconds"] == pay["seconds"] * 2
        assert longer["remaining"] > pay["remaining"] + pay["seconds"] - 5
        assert after["seq"] == before["seq"]  # the game itself did not move
        # A second request for the same debt is refused and changes nothing.
        ann.send({"type": "more_time", "ref": "m2"})
        refused = ann.recv_until("error", ref="m2")
        assert refused["code"] == "illegal_action"
        ann.send({"type": "sync"})
        again = ann.recv_until("snapshot")
        same = next(d for d in again["deadlines"] if d["id"] == pay["id"])
        assert same["seconds"] == longer["seconds"]
    finally:
        ann.close()


def test_more_time_is_refused_outside_ones_own_pay_step(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    ann.send({"type": "more_time", "ref": "early"})  # the game has not started
    assert ann.recv_until("error", ref="early")["code"] == "game_not_running"
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    first = ann.recv_until("snapshot")
    ann.send({"type": "more_time", "ref": "turn"})  # no pay step: the turn clock is a rule
    assert ann.recv_until("error", ref="turn")["code"] == "illegal_action"
    ann.send({"type": "sync"})
    now = ann.recv_until("snapshot")
    assert [d["seconds"] for d in now["deadlines"]] == [d["seconds"] for d in first["deadlines"]]
    # A spectator has no clock at all.
    eve = people("Eve")
    eve.connect(room["id"])
    eve.recv_until("snapshot")
    eve.send({"type": "more_time", "ref": "watcher"})
    assert eve.recv_until("error", ref="watcher")["code"] == "not_seated"
