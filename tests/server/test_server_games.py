"""Complete games over the real protocol: people seats against bot seats, in every mode."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from server_kit import Person, Table

from live_server import ThreadServer

MODES = ["classic", "blitz", "speed", "team", "halal", "fortuna"]


@pytest.mark.parametrize("mode", MODES)
def test_person_plays_a_complete_game_against_bots(
    mode: str, server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    seats = 4 if mode == "team" else 2
    room = ann.create(mode, seats)
    for strength in ("easy", "normal", "hard")[: seats - 1]:
        r = ann.post(f"/api/rooms/{room['id']}/bots", {"strength": strength})
        assert r.status_code == 200, r.text
    ann.connect(room["id"])
    r = ann.post(f"/api/rooms/{room['id']}/start")
    assert r.status_code == 200, r.text
    table = Table(ann, random.Random(mode))
    result = table.play()
    assert result is not None
    assert table.actions_sent > 0
    # Finished: the log and result are kept, the replay serves them without secrets.
    replay = ann.http.get(f"/games/{room['id']}/replay").json()
    assert replay["status"] == "finished"
    assert len(replay["actions"]) == table.seq
    assert [a["seq"] for a in replay["actions"]] == list(range(1, table.seq + 1))
    # The seed is revealed (fair dice) now the game is over; the generator state and decks never are.
    assert replay["fairness"]["seed"] > 0
    text = str(dict(replay, fairness=None))
    assert "seed" not in text and "deck" not in text and "rng" not in text
    # Out of the finished game: free to play again.
    assert ann.http.get("/api/session").json()["room"] is None
    ann.create("blitz", 2)


def test_two_people_see_the_same_events_in_the_same_order(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    room = ann.create("blitz", 3)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "normal"}).status_code == 200
    ann.connect(room["id"])
    bob.connect(room["id"])
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    tables = [Table(ann, random.Random(1)), Table(bob, random.Random(2))]
    failures: list[BaseException] = []

    def run(t: Table) -> None:
        try:
            t.play()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not failures, failures
    a, b = tables
    assert a.events_seen == b.events_seen
    assert a.seq == b.seq > 0
    assert a.result == b.result


def test_game_snapshot_has_deadlines_and_own_legal_actions(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    first = ann.recv_until("snapshot")
    assert first["game"] is None and first["you"]["seat"] == 0
    ann.post(f"/api/rooms/{room['id']}/start")
    snap = ann.recv_until("snapshot")
    game: dict[str, Any] = snap["game"]
    assert game["mode"] == "classic" and not game["over"]
    assert snap["deadlines"], "a running game always has a clock"
    kinds = {d["kind"] for d in snap["deadlines"]}
    assert kinds <= {"turn", "auction", "pay", "trade"}
    assert "'seed'" not in str(snap)  # only its commitment (fair dice), never the seed
