"""One test per finding of the security review (issue 9, docs/security.md), each failing on the server
as it was before the fix."""

from __future__ import annotations

import json
import os
import random
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_kit import Person, Table
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from live_server import ThreadServer
from opolyx import fairness

# --- access --------------------------------------------------------------------------------------------


def test_private_room_id_alone_neither_joins_nor_watches(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, eve, bob = people("Ann"), people("Eve"), people("Bob")
    room = ann.create("classic", 3, public=False)
    rid, code = room["id"], room["code"]
    ann.connect(rid)
    ann.recv_until("snapshot")
    ann.send({"type": "chat", "text": "our secret plan"})
    ann.recv_until("chat")
    # Eve knows the id (a shared link, a log line) but not the code.
    assert eve.post(f"/api/rooms/{rid}/join").json()["code"] == "room_not_found"
    assert eve.http.get(f"/api/rooms/{rid}").json()["code"] == "room_not_found"
    eve.connect(rid)
    frame = eve.recv()
    assert frame["code"] == "room_not_found" and "our secret plan" not in json.dumps(frame)
    with pytest.raises(ConnectionClosed):
        eve.recv(timeout=5)
    # With the code: Bob joins; once the game runs, the code lets Eve watch.
    assert bob.post("/api/join", {"code": code}).status_code == 200
    assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
    eve.disconnect()
    assert eve.post("/api/join", {"code": code.lower()}).status_code == 200
    eve.connect(rid)
    snap = eve.recv_until("snapshot")
    assert snap["you"]["spectator"] and snap["chat"][0]["text"] == "our secret plan"
    assert snap["room"]["code"] is None  # watchers are not handed the code to pass on


def test_room_codes_cannot_be_guessed_quickly(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_code_burst=3, rate_code_per_second=0.001)
    eve = Person(srv.base, "Eve")
    try:
        codes = [eve.post("/api/join", {"code": f"AAAA{i:04d}"}).status_code for i in range(6)]
        assert codes[:3] == [404, 404, 404] and set(codes[3:]) == {429}
    finally:
        eve.close()


def test_ids_and_codes_have_the_documented_entropy(server: ThreadServer, people: Callable[[str], Person]) -> None:
    room = people("Ann").create("classic", 2, public=False)
    assert len(room["id"]) == 16  # 12 random bytes, base64url: 96 bits
    assert len(room["code"]) == 8 and set(room["code"]) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")


# --- text ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nickname", "code"),
    [
        ("Ann\x00", "invalid_nickname"),
        ("Ann\x07", "invalid_nickname"),
        ("Ann\u202egnp.exe", "invalid_nickname"),
        ("A\u200bnn", "invalid_nickname"),
        ("\u2066Ann", "invalid_nickname"),
        ("Bot 1 (hard)", "reserved_nickname"),
        ("bot2", "reserved_nickname"),
        ("BOT", "reserved_nickname"),
    ],
)
def test_nicknames_are_validated(server: ThreadServer, nickname: str, code: str) -> None:
    r = httpx.post(server.base + "/api/session", json={"nickname": nickname})
    assert r.status_code == 422 and r.json()["code"] == code


def test_nicknames_are_normalised(server: ThreadServer) -> None:
    r = httpx.post(server.base + "/api/session", json={"nickname": "  Zoe\u0301   Lee "})
    assert r.json()["user"]["nickname"] == "Zo\u00e9 Lee"  # NFC, inner spaces collapsed
    assert httpx.post(server.base + "/api/session", json={"nickname": "Botticelli"}).status_code == 200


def test_chat_with_nul_or_a_lone_surrogate_is_refused_cleanly(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    room = ann.create()
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    for raw in ('{"type":"chat","text":"a\\u0000b","ref":1}', '{"type":"chat","text":"a\\ud800b","ref":1}',
                '{"type":"chat","text":"\\u202eevil","ref":1}'):
        ann.send(raw)
        err = ann.recv_until("error")
        assert err["code"] == "invalid_text" and err["ref"] == 1, err
    ann.send({"type": "ping", "ref": 2})
    assert ann.recv_until("pong")["ref"] == 2
    ann.send({"type": "chat", "text": "line one\nline two"})
    assert ann.recv_until("chat")["text"] == "line one\nline two"


# --- frames --------------------------------------------------------------------------------------------


def test_deeply_nested_json_gets_an_error_frame_and_the_socket_lives(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    room = ann.create()
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    for raw in ("[" * 5000 + "]" * 5000, '{"type":"chat","text":' + "[" * 5000 + "]" * 5000 + "}"):
        ann.send(raw)
        assert ann.recv_until("error")["code"] in ("bad_json", "bad_message")
    ann.send({"type": "ping", "ref": 9})
    assert ann.recv_until("pong")["ref"] == 9


def test_flood_closes_with_1008(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_ws_burst=5, rate_ws_per_second=0.001)
    ann = Person(srv.base, "Ann")
    try:
        room = ann.create()
        ws = ann.connect(room["id"])
        ann.recv_until("snapshot")
        for _ in range(80):
            try:
                ws.send('{"type":"ping"}')
            except ConnectionClosed:
                break
        with pytest.raises(ConnectionClosed) as info:
            while True:
                ann.recv(timeout=10)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1008
    finally:
        ann.close()


def test_sqlite_file_is_private(server: ThreadServer) -> None:
    url = server.settings.resolved_database_url()
    if not url.startswith("sqlite"):
        pytest.skip("this run uses PostgreSQL")
    sqlite = Path(url.split("///", 1)[-1])
    assert stat.S_IMODE(os.stat(sqlite).st_mode) & 0o077 == 0


# --- floods --------------------------------------------------------------------------------------------


def _finished_game(ann: Person) -> dict[str, Any]:
    """A short real game: Ann against a bot; she plays a few turns, then resigns. Returns the room and
    every event Ann's client was shown, as ``{seq, event}`` (what a browser keeps in its log)."""
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    ann.post(f"/api/rooms/{room['id']}/start")
    snap = ann.recv_until("snapshot")
    seen = list(snap["history"])
    table = Table(ann, random.Random(3))
    table.absorb(snap)
    table.p.send({"type": "sync"})
    deadline = time.monotonic() + 90
    while table.seq < 8 and not table.over and time.monotonic() < deadline:
        table.step()
    ann.send({"type": "action", "action": {"type": "resign"}})
    while True:
        frame = ann.recv()
        if frame["type"] == "notice" and frame["event"]["type"] == "seed_revealed":
            revealed = {"seq": frame["seq"], "event": frame["event"]}
            break
    seen += [{"seq": seq, "event": e} for seq, events in table.events_seen for e in events]
    for f in ann.frames:
        if f["type"] == "events" and f["seq"] > table.seq:
            seen += [{"seq": f["seq"], "event": e} for e in f["events"]]
    seen.sort(key=lambda h: h["seq"])  # stable: within a seq, the order shown
    seen.append(revealed)
    ann.disconnect()
    return {"room": room, "seen": seen}


def test_replays_are_cached_off_loop_and_limited(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_replay_burst=1, rate_replay_per_second=0.001)  # x4 per address
    ann = Person(srv.base, "Ann")
    try:
        rid = _finished_game(ann)["room"]["id"]
        replays = srv.server.config.app.state.services.replays  # type: ignore[attr-defined]
        bodies = [httpx.get(f"{srv.base}/games/{rid}/replay?snapshots=true") for _ in range(3)]
        assert all(b.status_code == 200 for b in bodies) and bodies[0].content == bodies[2].content
        assert replays.computed == 1  # computed once, then served from the cache
        assert bodies[0].json()["snapshots"][0]["seq"] == 0
        r = httpx.get(f"{srv.base}/games/{rid}/replay")
        assert r.status_code == 200
        r = httpx.get(f"{srv.base}/games/{rid}/replay")
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    finally:
        ann.close()


def test_replay_pages(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    rid = _finished_game(ann)["room"]["id"]
    whole = ann.http.get(f"/games/{rid}/replay?events=true").json()
    total = whole["total_actions"]
    assert total == len(whole["actions"]) >= 2
    page = ann.http.get(f"/games/{rid}/replay?events=true&start=1&limit=1").json()
    assert page["start"] == 1 and page["actions"] == whole["actions"][1:2]


def test_private_replays_need_a_seat_or_the_code(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, eve = people("Ann"), people("Eve")
    room = ann.create("classic", 2, public=False)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.post(f"/api/rooms/{room['id']}/start")
    ann.post(f"/api/rooms/{room['id']}/leave")  # resigns: the bot wins
    assert ann.http.get(f"/games/{room['id']}/replay").status_code == 200
    assert eve.http.get(f"/games/{room['id']}/replay").json()["code"] == "game_not_found"
    assert eve.http.get(f"/games/{room['id']}/replay?code={room['code']}").status_code == 200


def test_sockets_are_capped_per_session_and_address(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(max_sockets_per_user=2, max_sockets_per_address=3)
    ann, bob = Person(srv.base, "Ann"), Person(srv.base, "Bob")
    extra: list[Person] = []
    try:
        room = ann.create()
        for _ in range(2):
            p = Person(srv.base, "Ann2")
            p.token = ann.token  # another socket of Ann's session
            extra.append(p)
            p.connect(room["id"])
            assert p.recv_until("snapshot")
        third = Person(srv.base, "Ann3")
        third.token = ann.token
        extra.append(third)
        third.connect(room["id"])
        assert third.recv()["code"] == "too_many_sockets"
        # Bob's first socket fits the address's cap (3: two of Ann's and his); his second does not.
        bob.connect(room["id"])
        assert bob.recv_until("snapshot")
        other = Person(srv.base, "Bob2")
        other.token = bob.token
        extra.append(other)
        other.connect(room["id"])
        assert other.recv()["code"] == "too_many_sockets"
    finally:
        for p in [ann, bob, *extra]:
            p.close()


def test_sync_is_limited_per_session_not_per_socket(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_sync_burst=3, rate_sync_per_second=0.001)
    ann = Person(srv.base, "Ann")
    twin = Person(srv.base, "Twin")
    twin.token = ann.token
    try:
        room = ann.create()
        ann.connect(room["id"])
        twin.connect(room["id"])
        ann.recv_until("snapshot")
        twin.recv_until("snapshot")
        answers = []
        for i in range(3):
            (ann if i % 2 else twin).send({"type": "sync", "ref": i})
        for i in range(3):
            answers.append((ann if i % 2 else twin).recv_until("snapshot", ref=i)["type"])
        twin.send({"type": "sync", "ref": 99})
        assert twin.recv_until("error", ref=99)["code"] == "rate_limited"
    finally:
        ann.close()
        twin.close()


def test_new_guests_from_one_address_cannot_pile_up_rooms(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(max_waiting_rooms_per_address=3)
    guests = [Person(srv.base, f"G{i}") for i in range(4)]
    try:
        codes = [g.post("/api/rooms", {"mode": "classic", "seats": 2}).status_code for g in guests]
        assert codes == [201, 201, 201, 429]
        assert guests[3].post("/api/rooms", {}).json()["code"] == "too_many_rooms"
        # Starting or leaving a room frees the address's allowance.
        room = guests[0].http.get("/api/session").json()["room"]
        guests[0].post(f"/api/rooms/{room}/leave")
        assert guests[3].post("/api/rooms", {"mode": "classic", "seats": 2}).status_code == 201
    finally:
        for g in guests:
            g.close()


def test_idle_waiting_rooms_expire(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(waiting_room_ttl_minutes=0.01)  # 0.6 s
    ann = Person(srv.base, "Ann")
    try:
        room = ann.create()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and ann.http.get("/api/session").json()["room"] is not None:
            time.sleep(0.2)
        assert ann.http.get("/api/session").json()["room"] is None  # freed to play elsewhere
        assert room["id"] not in [r["id"] for r in httpx.get(srv.base + "/api/rooms").json()["waiting"]]
        assert ann.http.get(f"/api/rooms/{room['id']}").json()["status"] == "closed"
    finally:
        ann.close()


# --- fair dice -----------------------------------------------------------------------------------------


def test_seed_is_committed_first_and_revealed_at_the_end(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    game = _finished_game(ann)
    seen = game["seen"]
    first, last = seen[0]["event"], seen[-1]["event"]
    assert first["type"] == "seed_committed" and seen[0]["seq"] == 0
    assert last["type"] == "seed_revealed" and last["commitment"] == first["commitment"]
    assert fairness.commitment(last["seed"], last["nonce"]) == first["commitment"]
    rid = game["room"]["id"]
    replay = ann.http.get(f"/games/{rid}/replay?events=true").json()
    assert replay["fairness"]["seed"] == last["seed"]
    # The verify button: what this client saw, checked against the revealed seed.
    body = {"commitment": first["commitment"], "seen": seen}
    report = ann.post(f"/api/games/{rid}/verify", body).json()
    assert report["ok"] and report["commitment_ok"] and report["dice"] >= 1, report
    # Had the server shown other dice than the seed's, or another commitment, the check says so.
    forged = [dict(s, event=dict(s["event"], dice=[7, 7])) if s["event"]["type"] == "dice_rolled" else s for s in seen]
    report = ann.post(f"/api/games/{rid}/verify", {"commitment": first["commitment"], "seen": forged}).json()
    assert not report["ok"] and "dice" in report["mismatches"][0]
    report = ann.post(f"/api/games/{rid}/verify", {"commitment": "0" * 64, "seen": seen}).json()
    assert not report["ok"] and not report["commitment_ok"]


def forged_replay(replay: dict[str, Any], seed: int = 424242) -> dict[str, Any]:
    """What a cheater would hand around: a whole game of their own making, from a new seed, with that seed's
    own matching commitment inside the file. It agrees with itself; only an outside commitment exposes it."""
    import opolyx.engine

    nonce = "c0ffee" * 5 + "00"
    game = opolyx.engine.new_game(replay["mode"], len(replay["players"]), seed, seat_info=replay["seat_info"])
    start_events = list(game.start_events)
    actions: list[dict[str, Any]] = []
    for seq in range(1, 30):
        seat = game.actor()
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("resign", "propose_trade")]
        if game.result is not None or not legal:
            break
        actions.append({"seq": seq, "seat": seat, "action": legal[0], "events": game.apply(seat, legal[0])})
    forged = dict(replay, fairness=fairness.revealed_event(seed, nonce), actions=actions, start_events=start_events)
    forged.update(total_actions=len(actions), result=None)
    assert fairness.verify(forged, opolyx.engine).ok, "the forgery is consistent with its own commitment"
    return forged


def test_every_snapshot_carries_the_commitment(server: ThreadServer, people: Callable[[str], Person]) -> None:
    """A late or reloading viewer never receives the first event once the history has moved on: the
    commitment comes with every snapshot instead, equal to the one published at the start."""
    ann, bob = people("Ann"), people("Bob")
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    assert ann.recv_until("snapshot")["fairness"] is None, "no seed before the start"
    ann.post(f"/api/rooms/{room['id']}/start")
    snap = ann.recv_until("snapshot")
    first = next(h["event"] for h in snap["history"] if h["event"]["type"] == "seed_committed")
    assert snap["fairness"]["commitment"] == first["commitment"]
    bob.connect(room["id"])  # a spectator arriving later
    assert bob.recv_until("snapshot")["fairness"] == {k: first[k] for k in ("type", "algorithm", "commitment")}
    ann.disconnect()
    ann.connect(room["id"])  # a reload
    assert ann.recv_until("snapshot")["fairness"]["commitment"] == first["commitment"]


def test_the_verify_endpoint_never_judges_its_own_commitment(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    """The button once sent null when its log had lost the first event, and the server then checked its own
    commitment against itself: "ok" for anything. Null or missing is now an error with a stable code."""
    ann = people("Ann")
    game = _finished_game(ann)
    rid, seen = game["room"]["id"], game["seen"]
    for body in ({"commitment": None, "seen": seen}, {"seen": seen}, {"commitment": ""}):
        r = ann.post(f"/api/games/{rid}/verify", body)
        assert r.status_code == 422 and r.json()["code"] == "commitment_required", (body, r.text)
    # A wholly forged replay (new seed, its own matching commitment) shown as if the table had seen it.
    replay = ann.http.get(f"/games/{rid}/replay?events=true").json()
    forged = forged_replay(replay)
    forged_seen = [{"seq": a["seq"], "event": e} for a in forged["actions"] for e in a["events"]]
    report = ann.post(
        f"/api/games/{rid}/verify", {"commitment": forged["fairness"]["commitment"], "seen": forged_seen}
    ).json()
    assert not report["ok"] and not report["commitment_ok"], report


def test_hostile_paths_and_bodies_get_clean_refusals(server: ThreadServer, people: Callable[[str], Person]) -> None:
    """NUL in an id or code (PostgreSQL errors on NUL), ids of any length, huge and broken bodies."""
    ann = people("Ann")
    for path in ("/api/rooms/%00", "/api/rooms/" + "x" * 5000, "/games/%00/replay", "/games/a%00b/replay"):
        r = ann.http.get(path)
        assert r.status_code == 404 and r.json()["code"] in ("room_not_found", "game_not_found"), (path, r.text)
    assert ann.post("/api/rooms/%00/join").status_code == 404
    assert ann.post("/api/join", {"code": "AB\x00CDEFG"}).json()["code"] == "room_not_found"
    r = ann.http.post("/api/session", content=b"[" * 100_000, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "invalid_request"
    huge = b'{"nickname": "' + b"x" * 2_000_000 + b'"}'
    r = ann.http.post("/api/session", content=huge, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "payload_too_large"
    url = server.base.replace("http", "ws", 1) + "/ws/rooms/%00"
    with connect(url, additional_headers={"Authorization": f"Bearer {ann.token}"}) as ws:
        assert json.loads(ws.recv(timeout=10))["code"] == "room_not_found"
