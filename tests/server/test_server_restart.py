"""SIGKILL the server mid-game, start it again: nothing lost, clocks resume, clients reconnect."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from server_kit import Person, ProcessServer, Table

from opolyx.server import Settings


def test_sigkill_mid_game_and_restart(settings_for: Callable[..., Settings], tmp_path: Path) -> None:
    settings = settings_for(clock_checkpoint_seconds=0.2)
    server = ProcessServer(settings, tmp_path / "server.log")
    server.start()
    ann = None
    try:
        ann = Person(server.base, "Ann")
        room = ann.create("blitz", 3)
        ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "normal"})
        ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
        ann.connect(room["id"])
        ann.post(f"/api/rooms/{room['id']}/start")
        table = Table(ann, random.Random(3))
        table.p.send({"type": "sync"})
        seen: dict[int, tuple[int | None, dict[str, object]]] = {}

        def pump() -> None:
            table.step()
            f = ann.frames[-1]
            if f["type"] == "events":
                seen[f["seq"]] = (f["seat"], f["action"])

        while table.seq < 25 or table.awaiting is not None:
            pump()
        # Stop acting the moment it is Ann's turn: her clock runs, untouched, into the crash.
        deadline = time.monotonic() + 30
        while True:
            ann.send({"type": "sync"})
            before = ann.recv_until("snapshot")
            ours = [d for d in before["deadlines"] if d["seat"] == 0 and d["kind"] != "trade"]
            if ours and any(e["seat"] == 0 for e in before["game"]["pending"]):
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        clock = ours[0]
        time.sleep(1.0)  # let the clock run down and be checkpointed
        server.kill()
        ann.disconnect()

        server.start()
        ann.connect(room["id"])
        after = ann.recv_until("snapshot")
        assert after["seq"] == before["seq"]
        assert after["game"]["pending"] == before["game"]["pending"]
        resumed = next(d for d in after["deadlines"] if d["id"] == clock["id"])
        # Resumed with the time that was left (give or take one checkpoint), not a fresh countdown.
        assert resumed["remaining"] < clock["remaining"] - 0.5
        assert resumed["remaining"] > clock["remaining"] - 2.0
        assert after["you"]["seat"] == 0 and after["legal"]

        result = Table(ann, random.Random(5)).play()
        assert result is not None
        replay = ann.http.get(f"/games/{room['id']}/replay").json()
        stored = {a["seq"]: (a["seat"], a["action"]) for a in replay["actions"]}
        for seq, entry in seen.items():
            assert stored[seq] == entry, f"action {seq} changed or was lost"
        assert sorted(stored) == list(range(1, len(stored) + 1))
    finally:
        if ann is not None:
            ann.close()
        server.stop()
