"""The clock book, with a hand-driven time source."""

from __future__ import annotations

from typing import Any

from opolyx.server.clocks import ClockBook


class Now:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def snap(*pending: tuple[int, str, str, int], trades: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "over": False,
        "pending": [
            {"seat": s, "decision": "x", "clock": {"kind": k, "id": i, "seconds": sec}} for s, k, i, sec in pending
        ],
        "trades": trades or [],
    }


def test_same_id_keeps_its_deadline_and_pay_step_pauses_the_turn() -> None:
    now = Now()
    book = ClockBook(now=now)
    book.sync(snap((0, "turn", "turn:1", 75)))
    first = book.next_due()
    assert first is not None and first.deadline == 1075
    assert first.action == {"type": "timeout", "clock": "turn:1", "seat": 0}
    now.t += 30  # building, mortgaging: same id, same deadline
    book.sync(snap((0, "turn", "turn:1", 75)))
    assert book.running["c:turn:1"].deadline == 1075
    book.sync(snap((0, "pay", "pay:3", 75)))  # a pay step interrupts the turn
    assert set(book.running) == {"c:pay:3"}
    now.t += 50
    book.sync(snap((0, "turn", "turn:1", 75)))  # back to the turn: 45 s were left
    assert book.running["c:turn:1"].deadline == now.t + 45
    book.sync(snap((1, "turn", "turn:2", 75)))  # a new id starts afresh
    assert book.running["c:turn:2"].deadline == now.t + 75


def test_trades_lapse_with_their_own_action_and_restart_resumes() -> None:
    now = Now()
    book = ClockBook(scale=0.5, now=now)
    s = snap((0, "turn", "turn:1", 60), trades=[{"id": 7, "from": 0, "to": 1, "seconds": 60}])
    s["pending"].append({"seat": 1, "decision": "trade", "trade": 7,
                         "clock": {"kind": "trade", "id": "trade:7", "seconds": 60}})
    book.sync(s)
    assert book.running["t:7"].action == {"type": "timeout", "trade": 7}
    assert book.running["t:7"].deadline == 1030
    now.t += 10
    stored = book.to_store()
    again = ClockBook(scale=0.5, now=now)
    again.restore(stored)
    now.t += 500  # downtime does not count
    again.sync(s)
    assert again.running["c:turn:1"].deadline == now.t + 20
    assert [d["id"] for d in again.public()] == ["c:turn:1", "t:7"]
    again.kill("t:7")
    again.sync(s)
    assert "t:7" not in again.running
