"""Personal API keys: made, listed and revoked by their owner; a key plays as its owner, marked as an agent."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import httpx
from server_kit import Person, Table
from websockets.sync.client import connect

from live_server import ThreadServer


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_key_contract_create_list_revoke(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    r = ann.http.post("/api/keys", json={"label": "  my agent "}, headers=bearer(ann.token))
    assert r.status_code == 201, r.text
    made = r.json()
    assert set(made) == {"id", "label", "key", "created_at"}
    assert made["label"] == "my agent" and made["key"].startswith("opx_")
    listed = ann.http.get("/api/keys").json()
    assert listed == [{"id": made["id"], "label": "my agent", "created_at": made["created_at"], "last_used_at": None}]
    # The key works as Ann, and its use is noted.
    me = httpx.get(server.base + "/api/session", headers=bearer(made["key"]))
    assert me.status_code == 200 and me.json()["id"] == ann.id
    assert ann.http.get("/api/keys").json()[0]["last_used_at"] is not None
    # Someone else cannot revoke it.
    bob = people("Bob")
    assert bob.http.delete(f"/api/keys/{made['id']}").json()["code"] == "key_not_found"
    assert ann.http.delete(f"/api/keys/{made['id']}").status_code == 204
    assert ann.http.get("/api/keys").json() == []
    assert ann.http.delete(f"/api/keys/{made['id']}").status_code == 404


def test_a_revoked_key_is_refused(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    made = ann.post("/api/keys", {"label": "bot"}).json()
    room = ann.create("blitz", 2)
    assert ann.post(f"/api/rooms/{room['id']}/leave").status_code == 200
    ann.http.delete(f"/api/keys/{made['id']}")
    r = httpx.post(server.base + "/api/rooms", json={"mode": "blitz", "seats": 2}, headers=bearer(made["key"]))
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"
    ws_url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    with connect(ws_url, additional_headers=bearer(made["key"]), open_timeout=10) as ws:
        assert '"not_authenticated"' in str(ws.recv(timeout=10))


def test_keys_are_managed_with_a_session_not_a_key(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    key = ann.post("/api/keys", {"label": "bot"}).json()["key"]
    for method, path in (("POST", "/api/keys"), ("GET", "/api/keys")):
        r = httpx.request(method, server.base + path, json={"label": "x"}, headers=bearer(key))
        assert r.status_code == 403 and r.json()["code"] == "keys_need_session"
    assert httpx.post(server.base + "/api/keys", json={"label": ""}, headers=bearer(ann.token)).status_code == 422
    assert httpx.post(server.base + "/api/keys", json={"label": "x"}).status_code == 401


def test_an_agent_is_marked_in_the_room_and_the_lobby(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    key = bob.post("/api/keys", {"label": "bot"}).json()["key"]
    room = ann.create("blitz", 3)
    joined = httpx.post(server.base + f"/api/rooms/{room['id']}/join", headers=bearer(key))
    assert joined.status_code == 200, joined.text
    by_name = {p["name"]: p for p in joined.json()["players"]}
    assert by_name["Bob"]["agent"] is True and by_name["Bob"]["kind"] == "human"
    assert by_name["Ann"]["agent"] is False
    lobby = ann.http.get("/api/rooms").json()["waiting"]
    [listed] = [r for r in lobby if r["id"] == room["id"]]
    assert {p["name"]: p["agent"] for p in listed["players"]} == {"Ann": False, "Bob": True}
    # The mark survives the start (seats are renumbered then).
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    started = ann.post(f"/api/rooms/{room['id']}/start").json()
    assert {p["name"]: p["agent"] for p in started["players"]}["Bob"] is True


def test_an_agent_cannot_act_for_another_seat(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    key = bob.post("/api/keys", {"label": "bot"}).json()["key"]
    room = ann.create("blitz", 2)
    assert httpx.post(server.base + f"/api/rooms/{room['id']}/join", headers=bearer(key)).status_code == 200
    ann.post(f"/api/rooms/{room['id']}/start")
    ws_url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    with connect(ws_url, additional_headers=bearer(key), open_timeout=10) as ws:
        snap = json.loads(ws.recv(timeout=10))
        mine = snap["you"]["seat"]
        other = 1 - mine
        ws.send(json.dumps({"type": "action", "action": {"type": "roll"}, "seat": other, "ref": 7}))
        while True:
            frame = json.loads(ws.recv(timeout=10))
            if frame["type"] == "error":
                break
        assert frame["code"] == "wrong_seat" and frame["ref"] == 7
        # Nothing changed.
        ws.send(json.dumps({"type": "sync", "ref": 8}))
        while True:
            after = json.loads(ws.recv(timeout=10))
            if after["type"] == "snapshot":
                break
        assert after["seq"] == snap["seq"]


def test_a_persons_seat_shows_an_agent_while_a_key_plays_it(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    key = bob.post("/api/keys", {"label": "bot"}).json()["key"]
    room = ann.create("blitz", 2)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200  # in person, with the session
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    ws_url = server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    with connect(ws_url, additional_headers=bearer(key), open_timeout=10):
        frame = ann.recv_until("room")
        assert {p["name"]: p["agent"] for p in frame["room"]["players"]} == {"Ann": False, "Bob": True}
    while True:
        frame = ann.recv_until("room")
        if {p["name"]: p["agent"] for p in frame["room"]["players"]}["Bob"] is False:
            break


def test_an_agents_game_ranks_it_on_the_agents_board_never_among_people(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    """Issue 40: AI agents are ranked apart. Ann's agent plays a whole Blitz game against a bot through
    her key: it earns points on the agents' board; Ann's own XP, level and the people's board stay as
    they were."""
    ann = people("Ann")
    key = ann.post("/api/keys", {"label": "my agent"}).json()["key"]
    agent = people("Agent shell")
    agent.token = key
    agent.http.headers.update(bearer(key))
    room = agent.create("blitz", 2)
    assert agent.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    agent.connect(room["id"])
    snap = agent.recv_until("snapshot")
    assert snap["room"]["xp"]["pays"] is False and snap["room"]["xp"]["board"] == "agents", "said before the game"
    assert agent.post(f"/api/rooms/{room['id']}/start").status_code == 200
    table = Table(agent, random.Random(9))
    table.play(max_seconds=400)
    over = next(f for f in reversed(agent.frames) if f["type"] == "events" and f["over"])
    (mine,) = over["progression"]
    assert ann.http.get("/api/profile").json()["user"]["xp"] == 0, "no person's XP for an agent's game"
    people_board = ann.http.get("/api/leaderboard").json()
    assert ann.id not in [r["user_id"] for r in people_board["rows"]]
    agents_board = ann.http.get("/api/leaderboard", params={"board": "agents"}).json()
    assert agents_board["board"] == "agents"
    assert over["result"]["round"] >= 10 and mine["refused"] is None and mine["xp"] > 0
    assert mine["parts"]["played"] == mine["parts"]["turns"], "every turn the agent's own"
    assert [(r["user_id"], r["value"]) for r in agents_board["rows"]] == [(ann.id, mine["xp"])]
