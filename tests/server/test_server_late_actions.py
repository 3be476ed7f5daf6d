"""An action meant for a decision whose clock ran out is told so: ``clock_expired``, not ``stale_state`` or the
engine's ``wrong_phase`` (issue 47). The engine stays pure; the hub knows which of the actions since the
sender's ``seq`` was the timeout of the sender's own decision."""

from __future__ import annotations

import time
from collections.abc import Callable

from server_kit import Person

from live_server import ThreadServer
from rigged_engine import RiggedEngine


def test_a_bid_after_its_clock_ran_out_gets_clock_expired(start_server: Callable[..., ThreadServer]) -> None:
    # Seat 0 starts and rolls 1+2 onto brown B; a tenth of the clocks: the 10 s bid clock is 1 s.
    server = start_server(engine=lambda: RiggedEngine(first_player=0, dice=[(1, 2)]), clock_scale=0.1)
    ann = Person(server.base, "Ann")
    try:
        room = ann.create("blitz", 2)
        ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
        ann.connect(room["id"])
        ann.recv_until("snapshot")
        assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
        seq = ann.recv_until("snapshot")["seq"]
        ann.send({"type": "action", "action": {"type": "roll"}, "seq": seq, "ref": 1})
        seq = ann.recv_until("events", ref=1)["seq"]
        ann.send({"type": "action", "action": {"type": "decline"}, "seq": seq, "ref": 2})
        frame = ann.recv_until("events", ref=2)
        while not any(a["type"] == "bid" for a in frame["legal"]):  # the bot bids first
            frame = ann.recv_until("events")
        seen = frame["seq"]
        bid = next(a for a in frame["legal"] if a["type"] == "bid")
        time.sleep(1.5)  # longer than the bid clock: the timeout passes for Ann
        ann.send({"type": "action", "action": bid, "seq": seen, "ref": 3})
        error = ann.recv_until("error", ref=3)
        assert error["code"] == "clock_expired", error
        assert error["data"]["timed_out_at_seq"] == seen + 1 and error["data"]["clock"].startswith("auction")
        # Decided after the timeout: not late (stale at most, or refused by the engine if current).
        after = error["data"]["timed_out_at_seq"]
        ann.send({"type": "action", "action": {"type": "buy"}, "seq": after, "ref": 4})
        assert ann.recv_until("error", ref=4)["code"] in ("stale_state", "illegal_action")
    finally:
        ann.close()
