"""Sessions, the lobby and its refusals, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from server_kit import Person

from live_server import ThreadServer


def test_health_and_openapi(server: ThreadServer) -> None:
    assert httpx.get(server.base + "/healthz").json() == {"status": "ok"}
    paths = httpx.get(server.base + "/openapi.json").json()["paths"]
    for path in ("/api/session", "/api/rooms", "/api/rooms/{room_id}/join", "/api/join", "/games/{game_id}/replay"):
        assert path in paths


def test_guest_session_cookie_and_token(server: ThreadServer) -> None:
    with httpx.Client(base_url=server.base) as c:
        assert c.get("/api/session").json()["code"] == "not_authenticated"
        r = c.post("/api/session", json={"nickname": "  Zoë ", "language": "de", "token": True})
        assert r.status_code == 200
        user = r.json()["user"]
        assert user["nickname"] == "Zoë" and user["language"] == "de" and user["guest"] is True
        assert c.get("/api/session").json()["id"] == user["id"]
        token = r.json()["token"]
        # Same session again updates the profile instead of creating a second person.
        r2 = c.post("/api/session", json={"nickname": "Zoe", "language": "fr"})
        assert r2.json()["user"]["id"] == user["id"]
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(server.base + "/api/session", headers=headers).json()["nickname"] == "Zoe"
    forged = {"Authorization": "Bearer " + token[:-2] + "xx"}
    assert httpx.get(server.base + "/api/session", headers=forged).status_code == 401
    bad = httpx.post(server.base + "/api/session", json={"nickname": "", "language": "xx"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"


def test_room_lifecycle_and_refusals(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob, cid = people("Ann"), people("Bob"), people("Cid")
    assert ann.post("/api/rooms", {"mode": "team", "seats": 3}).json()["code"] == "invalid_seats"
    assert ann.post("/api/rooms", {"mode": "chess", "seats": 3}).json()["code"] == "invalid_request"
    assert ann.post("/api/rooms", {"mode": "classic", "seats": 7}).json()["code"] == "invalid_request"
    room = ann.create("classic", 3, public=False)
    rid = room["id"]
    assert room["code"] and len(room["code"]) == 8
    # Private rooms are not listed, and the id alone shows nothing: they are joined by code.
    listing = httpx.get(server.base + "/api/rooms").json()
    assert rid not in [r["id"] for r in listing["waiting"]]
    assert bob.http.get(f"/api/rooms/{rid}").json()["code"] == "room_not_found"
    assert bob.post("/api/join", {"code": room["code"].lower()}).status_code == 200
    # One unfinished game per person.
    r = bob.post("/api/rooms", {"mode": "blitz", "seats": 2})
    assert r.status_code == 409 and r.json()["code"] == "already_in_game" and r.json()["room"] == rid
    # Creator-only actions.
    assert bob.post(f"/api/rooms/{rid}/bots", {"strength": "easy"}).json()["code"] == "not_creator"
    assert bob.post(f"/api/rooms/{rid}/start").json()["code"] == "not_creator"
    assert ann.post(f"/api/rooms/{rid}/bots", {"strength": "legendary"}).json()["code"] == "invalid_request"
    r = ann.post(f"/api/rooms/{rid}/bots", {"strength": "hard"})
    assert [p["kind"] for p in r.json()["players"]] == ["human", "human", "bot"]
    assert cid.post(f"/api/rooms/{rid}/join").json()["code"] == "room_not_found"  # no code, no entry
    assert cid.post("/api/join", {"code": room["code"]}).json()["code"] == "room_full"
    bot_seat = r.json()["players"][2]["seat"]
    assert ann.http.delete(f"/api/rooms/{rid}/bots/0").json()["code"] == "not_a_bot"
    assert ann.http.delete(f"/api/rooms/{rid}/bots/{bot_seat}").status_code == 200
    assert cid.post(f"/api/rooms/{rid}/join").status_code == 200
    # Leaving frees the person; the creator leaving hands the room on.
    assert ann.post(f"/api/rooms/{rid}/leave").status_code == 200
    assert ann.http.get("/api/session").json()["room"] is None
    view = bob.http.get(f"/api/rooms/{rid}").json()
    assert view["creator"] == bob.id
    assert ann.post(f"/api/rooms/{rid}/leave").json()["code"] == "not_in_room"
    assert bob.post(f"/api/rooms/{rid}/start").status_code == 200
    assert cid.post(f"/api/rooms/{rid}/leave").status_code == 200  # resigns from the running game
    assert cid.http.get("/api/session").json()["room"] is None
    assert ann.post(f"/api/rooms/{rid}/join").json()["code"] == "room_not_found"  # she left: the id is not enough
    assert ann.post("/api/join", {"code": room["code"]}).status_code == 200  # the code lets her watch
    assert ann.post(f"/api/rooms/{rid}/join").json()["code"] == "already_started"
    assert ann.http.get("/api/rooms/nope").json()["code"] == "room_not_found"
    assert ann.post("/api/join", {"code": "ZZZZZZ"}).json()["code"] == "room_not_found"
    # Cid's resignation left Bob alone: the game is over and its replay is served.
    assert bob.http.get(f"/games/{rid}/replay").json()["status"] == "finished"


def test_public_listing_shows_waiting_and_running(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    waiting = ann.create("speed", 4)
    running = bob.create("blitz", 2)
    bob.post(f"/api/rooms/{running['id']}/bots", {"strength": "easy"})
    assert bob.post(f"/api/rooms/{waiting['id']}/start").json()["code"] == "not_creator"
    assert ann.post(f"/api/rooms/{waiting['id']}/start").json()["code"] == "not_enough_players"
    bob.post(f"/api/rooms/{running['id']}/start")
    assert ann.http.get(f"/games/{running['id']}/replay").json()["code"] == "game_not_finished"
    listing = httpx.get(server.base + "/api/rooms").json()
    assert waiting["id"] in [r["id"] for r in listing["waiting"]]
    assert running["id"] in [r["id"] for r in listing["running"]]


def test_team_needs_a_full_table(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    room = ann.create("team", 4)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    assert ann.post(f"/api/rooms/{room['id']}/start").json()["code"] == "team_needs_full_table"


def test_rate_limits_refuse_floods(start_server: Callable[..., ThreadServer]) -> None:
    srv = start_server(rate_create_burst=2, rate_create_per_second=0.001, rate_join_burst=3,
                       rate_join_per_second=0.001)
    ann = Person(srv.base, "Ann")
    try:
        room = ann.create("classic", 2)
        ann.post(f"/api/rooms/{room['id']}/leave")
        room = ann.create("classic", 2)
        ann.post(f"/api/rooms/{room['id']}/leave")
        r = ann.post("/api/rooms", {"mode": "classic", "seats": 2})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        codes = [ann.post(f"/api/rooms/{room['id']}/join").status_code for _ in range(5)]
        assert 429 in codes
    finally:
        ann.close()
