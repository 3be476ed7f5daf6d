"""The clock book, with a hand-driven time source, and the checkpoints that write it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from opolyx.server.engine_api import load_engine
from opolyx.server.play.clocks import ClockBook
from opolyx.server.play.context import HubContext
from opolyx.server.play.rooms import CHECKPOINT_ROOMS, RoomService
from opolyx.server.settings import Settings


async def no_frames(hub: Any, conn: Any, raw: Any) -> None:
    """No socket sends frames in these tests."""



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


def test_clock_checkpoints_write_many_rooms_in_short_transactions(tmp_path: Path) -> None:
    """At a thousand running games, one transaction for every room's clocks held every room up for about
    10 ms each checkpoint: the checkpoint writes them in transactions of CHECKPOINT_ROOMS rooms and
    lets the loop serve actions between them; every room is still written."""
    rooms_total = 2 * CHECKPOINT_ROOMS + 17
    writes: list[list[str]] = []
    served: list[int] = []

    class Store:
        async def save_clocks_many(self, due: dict[str, Any]) -> None:
            writes.append(list(due))

    class Hub:
        def __init__(self, room_id: str) -> None:
            self.room = SimpleNamespace(id=room_id)

        def clocks_to_checkpoint(self) -> dict[str, Any]:
            return {"running": {"turn": 30.0}, "paused": {}}

    async def run() -> None:
        settings = Settings(data_dir=tmp_path, clock_checkpoint_seconds=0.01, secret_key="test-secret")
        service = RoomService(HubContext(settings, cast(Any, Store()), load_engine), on_frame=no_frames)
        service.hubs = {f"r{i}": cast(Any, Hub(f"r{i}")) for i in range(rooms_total)}

        async def an_action_arrives() -> None:
            while len(writes) < 3:
                served.append(len(writes))
                await asyncio.sleep(0)

        service.start_checkpoints()
        try:
            await asyncio.wait_for(an_action_arrives(), timeout=10)
        finally:
            service.hubs = {}
            await service.close()

    asyncio.run(run())
    first = writes[:3]
    assert [len(w) for w in first] == [CHECKPOINT_ROOMS, CHECKPOINT_ROOMS, 17]
    assert sorted(room for w in first for room in w) == sorted(f"r{i}" for i in range(rooms_total))
    assert 1 in served and 2 in served  # the loop ran other work between the transactions
