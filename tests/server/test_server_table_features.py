"""Rooms whose leavers are replaced by bots, the state in every events frame, the recent-event history
in snapshots (also after a restart), bot descriptors and compressed HTTP answers — on a real server."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import httpx
from server_kit import Person, Table

from live_server import ThreadServer
from opolyx.server.play.hub import HISTORY_LIMIT


def _settle(p: Person, seat: int, timeout: float = 30.0) -> dict[str, Any]:
    """Sync until it is ``seat``'s decision (the bots have played up to it); the snapshot then."""
    deadline = time.monotonic() + timeout
    while True:
        p.send({"type": "sync"})
        snap = p.recv_until("snapshot")
        if any(e["seat"] == seat for e in snap["game"]["pending"]):
            return snap
        assert time.monotonic() < deadline, "the bots never handed over"
        time.sleep(0.05)


def test_bots_take_over_the_seats_of_people_who_resign(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob, cid = people("Ann"), people("Bob"), people("Cid")
    r = ann.post("/api/rooms", {"mode": "blitz", "seats": 2, "public": True, "bots_replace_leavers": True})
    assert r.status_code == 201, r.text
    room = r.json()
    assert room["bots_replace_leavers"] is True
    listed = ann.http.get("/api/rooms").json()["waiting"]
    assert next(x for x in listed if x["id"] == room["id"])["bots_replace_leavers"] is True
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    ann.connect(room["id"])
    bob.connect(room["id"])
    ann.recv_until("snapshot")
    bob.recv_until("snapshot")
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    start = bob.recv_until("snapshot")
    bob_seat = start["you"]["seat"]
    ann_seat = 1 - bob_seat

    # Bob resigns over the socket: a bot takes his seat, he is free and now only watches.
    bob.send({"type": "action", "action": {"type": "resign"}, "ref": "bye"})
    notice = bob.recv_until("notice")
    assert notice["event"]["type"] == "bot_took_over"
    assert notice["event"]["seat"] == bob_seat and notice["event"]["name"] == "Bob"
    assert notice["event"]["bot"] == {"strength": "normal", "number": 1}
    mine = bob.recv_until("snapshot", ref="bye")
    assert mine["you"]["seat"] is None and mine["you"]["spectator"] and mine["legal"] == []
    seat = next(p for p in mine["room"]["players"] if p["seat"] == bob_seat)
    assert seat["kind"] == "bot" and seat["strength"] == "normal" and not seat["out"]
    assert seat["bot"] == {"strength": "normal", "number": 1, "replaces": "Bob"}
    assert seat["name"] == "Bot 1 (normal)"
    player = next(p for p in mine["game"]["players"] if p["seat"] == bob_seat)
    assert player["bot"] is True and player["name"] == "Bot 1 (normal)" and not player.get("out")
    assert mine["history"][-1]["event"]["type"] == "bot_took_over"
    assert ann.recv_until("notice")["event"]["seat"] == bob_seat
    assert bob.http.get("/api/session").json()["room"] is None
    other = bob.create("classic", 2)  # the one-unfinished-game rule lets him go
    assert bob.post(f"/api/rooms/{other['id']}/leave").status_code == 200

    # The bot plays Bob's seat: Ann is handed the turn back without a clock running out.
    _settle(ann, ann_seat)
    # Ann leaves over HTTP: a second bot; both seats play on to the end, which a watcher sees.
    assert ann.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    view = ann.http.get(f"/api/rooms/{room['id']}").json()
    assert view["status"] == "running"
    assert [p["bot"]["replaces"] for p in sorted(view["players"], key=lambda p: p["seat"])] == (
        ["Ann", "Bob"] if ann_seat == 0 else ["Bob", "Ann"]
    )
    assert ann.http.get("/api/session").json()["room"] is None
    cid.connect(room["id"])
    seen = cid.recv_until("snapshot")
    assert seen["you"]["spectator"]
    over = cid.recv_until("events", timeout=240, over=True)
    assert over["game"]["over"] is True and over["seat"] in (0, 1)


def test_without_the_option_resigning_puts_the_seat_out(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    room = ann.create("blitz", 3)
    assert room["bots_replace_leavers"] is False
    bob.post(f"/api/rooms/{room['id']}/join")
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "hard"})
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    ann.post(f"/api/rooms/{room['id']}/start")
    ann.recv_until("snapshot")
    assert bob.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    resigned = ann.recv_until("events", action={"type": "resign"})
    assert resigned["game"]["seq"] == resigned["seq"]
    view = ann.http.get(f"/api/rooms/{room['id']}").json()
    bob_view = next(p for p in view["players"] if p["name"] == "Bob")
    assert bob_view["kind"] == "human" and bob_view["out"] and bob_view["bot"] is None
    assert not any(f["type"] == "notice" for f in ann.frames)


def test_events_carry_the_new_state_and_snapshots_the_history(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, eve = people("Ann"), people("Eve")
    room = ann.create("blitz", 2)
    r = ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    assert r.json()["players"][1]["bot"] == {"strength": "easy", "number": 1, "replaces": None}
    ann.connect(room["id"])
    first = ann.recv_until("snapshot")
    assert first["history"] == []
    ann.post(f"/api/rooms/{room['id']}/start")
    started = ann.recv_until("snapshot")
    # Fair dice: the seed's commitment comes first, before anything random happened.
    assert [h["event"]["type"] for h in started["history"]][:2] == ["seed_committed", "game_started"]
    assert all(h["seq"] == 0 for h in started["history"])
    table = Table(ann, random.Random(7))
    table.absorb(started)
    frames: list[dict[str, Any]] = []
    ann.send({"type": "sync"})
    while len(frames) < 12 and not table.over:
        before = len(ann.frames)
        table.step()
        frames += [f for f in ann.frames[before:] if f["type"] == "events"]
    for f in frames:
        game = f["game"]
        assert game is not None and game["seq"] == f["seq"] and game["pending"] == f["pending"]
    # A late spectator sees the log so far, ending where the live frames go on.
    eve.connect(room["id"])
    late = eve.recv_until("snapshot")
    history = late["history"]
    assert [h["event"]["type"] for h in history[:2]] == ["seed_committed", "game_started"]
    assert history[-1]["seq"] == late["seq"]
    flat = [(h["seq"], h["event"]) for h in history if h["seq"] > 0]
    live = [(f["seq"], e) for f in frames for e in f["events"] if f["seq"] <= late["seq"]]
    assert flat[: len(live)] == live
    # Played to the end, the history keeps only the most recent events.
    result = table.play()
    assert result is not None
    eve.disconnect()
    eve.connect(room["id"])
    end = eve.recv_until("snapshot")
    assert 0 < len(end["history"]) <= HISTORY_LIMIT
    # Fair dice: the game's last event reveals its seed.
    assert end["history"][-1]["event"]["type"] == "seed_revealed"
    played = [(h["seq"], h["event"]) for h in end["history"][:-1]]
    seen = [(s, e) for s, events in table.events_seen for e in events]
    moves = [(seq, e) for seq, e in played if seq > 0]
    assert moves and moves == seen[-len(moves):]
    if len(moves) < len(played):
        # A game shorter than the limit keeps its start too (the seed's commitment and the start, at step 0),
        # and then every event played after it.
        assert [e["type"] for _seq, e in played[:2]] == ["seed_committed", "game_started"]
        assert moves == seen
    else:
        assert len(end["history"]) == HISTORY_LIMIT


def test_history_and_takeovers_survive_a_restart(start_server: Callable[..., ThreadServer]) -> None:
    first = start_server()
    ann, bob = Person(first.base, "Ann"), Person(first.base, "Bob")
    try:
        r = ann.post("/api/rooms", {"mode": "classic", "seats": 2, "bots_replace_leavers": True})
        room = r.json()
        bob.post(f"/api/rooms/{room['id']}/join")
        ann.connect(room["id"])
        ann.recv_until("snapshot")
        ann.post(f"/api/rooms/{room['id']}/start")
        ann_seat = ann.recv_until("snapshot")["you"]["seat"]
        assert bob.post(f"/api/rooms/{room['id']}/leave").status_code == 200
        ann.recv_until("notice")
        ann.send({"type": "chat", "text": "still here"})
        said = ann.recv_until("chat")
        before = _settle(ann, ann_seat)
        assert any(h["event"]["type"] == "bot_took_over" for h in before["history"])
        assert before["chat"][-1] == said
        ann.disconnect()
    finally:
        first.__exit__(None, None, None)
    second = start_server()
    ann.base = second.base
    ann.http.close()
    ann.http = httpx.Client(base_url=second.base, timeout=30, cookies={"opolyx_session": ann.token})
    try:
        ann.connect(room["id"])
        after = ann.recv_until("snapshot")
        assert after["seq"] == before["seq"]
        assert after["history"] == before["history"]
        assert after["game"] == before["game"]
        assert after["room"]["players"] == before["room"]["players"]
        assert after["chat"] == before["chat"]  # chat is stored too
    finally:
        ann.close()
        bob.close()


def test_http_answers_are_compressed(server: ThreadServer) -> None:
    with httpx.Client(base_url=server.base) as http:
        big = http.get("/openapi.json", headers={"Accept-Encoding": "gzip"})
        assert big.status_code == 200 and big.headers.get("content-encoding") == "gzip"
        assert int(big.headers["content-length"]) < len(big.content)
        small = http.get("/healthz", headers={"Accept-Encoding": "gzip"})
        assert small.headers.get("content-encoding") is None
        plain = http.get("/openapi.json", headers={"Accept-Encoding": "identity"})
        assert plain.headers.get("content-encoding") is None and plain.json() == big.json()
