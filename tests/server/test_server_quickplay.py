"""Quick play and ratings at a real server: "Play now" seats waiting people together, fills a table with
bots when the countdown runs out or at once on request, leaving the queue is instant, and a rated game's
end moves the ratings shown on the profile and the leaderboard (not a private room's)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from server_kit import Person

from live_server import ThreadServer


def _until_seated(p: Person, timeout: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = p.http.get("/api/quickplay").json()
        if body["status"] == "seated":
            return body
        time.sleep(0.05)
    raise AssertionError(f"{p.id} was not seated: {body}")


def test_two_people_pressing_play_now_sit_together_and_play_at_once(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(quickplay_wait_seconds=30.0, quickplay_tick_seconds=0.05)
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    try:
        queued = ann.post("/api/quickplay", {"mode": "blitz", "seats": 2})
        assert queued.status_code == 200, queued.text
        body = queued.json()
        assert body["status"] == "queued" and body["position"] == 1 and body["wait_seconds"] == 30.0
        assert 29.0 < body["remaining"] <= 30.0
        assert bob.post("/api/quickplay", {"mode": "blitz", "seats": 2}).status_code == 200
        a, b = _until_seated(ann), _until_seated(bob)
        assert a["room"] == b["room"]
        room = ann.http.get(f"/api/rooms/{a['room']}").json()
        assert room["status"] == "running" and room["public"] and room["rated"]
        assert sorted(p["name"] for p in room["players"]) == ["Ann", "Bob"]
        # Seated means in a game: a second Play now is refused until it ends.
        again = ann.post("/api/quickplay", {"mode": "blitz"})
        assert again.status_code == 409 and again.json()["code"] == "already_in_game"
    finally:
        ann.close()
        bob.close()


def test_start_with_bots_fills_the_table_at_once_and_leaving_is_instant(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(quickplay_wait_seconds=60.0, quickplay_tick_seconds=0.05)
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    try:
        assert bob.post("/api/quickplay", {"mode": "classic", "seats": 3}).json()["status"] == "queued"
        left = bob.http.delete("/api/quickplay")
        assert left.status_code == 200 and left.json()["status"] == "idle"
        ann.post("/api/quickplay", {"mode": "classic", "seats": 3, "strength": "hard"})
        now = ann.post("/api/quickplay/bots").json()
        seated = now if now["status"] == "seated" else _until_seated(ann)
        room = ann.http.get(f"/api/rooms/{seated['room']}").json()
        assert room["status"] == "running" and room["seats"] == 3
        kinds = sorted((p["kind"], p["strength"]) for p in room["players"])
        assert kinds == [("bot", "hard"), ("bot", "hard"), ("human", None)]
        # Bob left before: he was not seated, and is not queued.
        assert bob.http.get("/api/quickplay").json()["status"] == "idle"
    finally:
        ann.close()
        bob.close()


def test_the_countdown_running_out_seats_a_lone_person_with_bots(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(quickplay_wait_seconds=0.5, quickplay_tick_seconds=0.05)
    ann = Person(server.base, "Ann")
    try:
        started = time.monotonic()
        ann.post("/api/quickplay", {"mode": "team", "strength": "easy"})
        seated = _until_seated(ann)
        assert time.monotonic() - started >= 0.5
        room = ann.http.get(f"/api/rooms/{seated['room']}").json()
        assert room["mode"] == "team" and room["seats"] == 4 and len(room["players"]) == 4
    finally:
        ann.close()


def test_play_now_refuses_what_no_table_can_be(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    assert ann.post("/api/quickplay", {"mode": "team", "seats": 3}).status_code == 422
    assert ann.post("/api/quickplay", {"mode": "chess"}).status_code == 422
    assert ann.post("/api/quickplay", {"mode": "classic", "strength": "godlike"}).status_code == 422
    assert httpx.post(server.base + "/api/quickplay", json={"mode": "classic"}).status_code == 401
    assert ann.http.get("/api/quickplay").json()["status"] == "idle"
    ann.create("classic", 2)
    busy = ann.post("/api/quickplay", {"mode": "classic"})
    assert busy.status_code == 409 and busy.json()["code"] == "already_in_game"


def _resign_quick_game(p: Person, mode: str = "blitz") -> str:
    p.post("/api/quickplay", {"mode": mode, "seats": 2, "strength": "normal"})
    p.post("/api/quickplay/bots")
    room_id = str(_until_seated(p)["room"])
    assert p.post(f"/api/rooms/{room_id}/leave").status_code == 200
    deadline = time.monotonic() + 15
    while p.http.get(f"/api/rooms/{room_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return room_id


def test_a_rated_game_moves_the_rating_on_the_profile_and_a_private_one_does_not(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(quickplay_wait_seconds=30.0, quickplay_tick_seconds=0.05)
    ann = Person(server.base, "Ann")
    try:
        assert ann.http.get("/api/profile/ratings").json() == {"ratings": [], "history": []}
        game = _resign_quick_game(ann)
        deadline = time.monotonic() + 10
        while not (mine := ann.http.get("/api/profile/ratings").json())["ratings"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        [rating] = mine["ratings"]
        assert (rating["mode"], rating["pool"], rating["games"], rating["provisional"]) == ("blitz", "people", 1, True)
        assert rating["mu"] < 25.0  # lost to a bot
        [point] = mine["history"]
        assert point["game_id"] == game and point["before"] == 1000 and point["rating"] == rating["rating"]
        # A private room is unrated: its end changes nothing.
        room = ann.create("blitz", 2, public=False)
        assert room["rated"] is False
        ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
        ann.post(f"/api/rooms/{room['id']}/start")
        ann.post(f"/api/rooms/{room['id']}/leave")
        time.sleep(0.5)
        assert ann.http.get("/api/profile/ratings").json()["ratings"][0]["games"] == 1
        # Provisional ratings stay off the rating leaderboard.
        board = ann.http.get("/api/leaderboard/rating?mode=blitz").json()
        assert board["rows"] == [] and board["min_games"] == 5 and board["you"] is None
        assert ann.http.get("/api/leaderboard/rating?mode=chess").status_code == 422
    finally:
        ann.close()


def test_an_agent_playing_through_an_api_key_is_rated_on_a_board_of_its_own(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(quickplay_wait_seconds=30.0, quickplay_tick_seconds=0.05)
    ann = Person(server.base, "Ann")
    try:
        key = ann.http.post("/api/keys", json={"label": "bot"}, headers={"Authorization": f"Bearer {ann.token}"})
        assert key.status_code == 201, key.text
        agent = httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {key.json()['key']}"})
        assert agent.post("/api/quickplay", json={"mode": "blitz", "seats": 2}).json()["status"] == "queued"
        agent.post("/api/quickplay/bots")
        deadline = time.monotonic() + 15
        while (body := agent.get("/api/quickplay").json())["status"] != "seated":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        room = agent.get(f"/api/rooms/{body['room']}").json()
        assert [p["agent"] for p in room["players"] if p["kind"] == "human"] == [True]
        agent.post(f"/api/rooms/{body['room']}/leave")
        while not (mine := ann.http.get("/api/profile/ratings").json())["ratings"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert [(r["mode"], r["pool"]) for r in mine["ratings"]] == [("blitz", "agents")]
        agent.close()
    finally:
        ann.close()


def test_someone_who_sat_down_elsewhere_while_queued_is_not_seated_twice(
    start_server: Callable[..., ThreadServer],
) -> None:
    """Ann queues, then creates a room of her own; when a table forms with her in it, the one-game rule
    keeps her out of it: Bob plays on with a bot in her place, Ann keeps her own room."""
    server = start_server(quickplay_wait_seconds=60.0, quickplay_tick_seconds=0.05)
    ann, bob = Person(server.base, "Ann"), Person(server.base, "Bob")
    try:
        assert ann.post("/api/quickplay", {"mode": "halal", "seats": 2}).json()["status"] == "queued"
        own = ann.create("classic", 3)
        bob.post("/api/quickplay", {"mode": "halal", "seats": 2})
        room_id = _until_seated(bob)["room"]
        room = bob.http.get(f"/api/rooms/{room_id}").json()
        assert sorted((p["kind"], p["name"]) for p in room["players"]) == [("bot", "Bot 1 (normal)"), ("human", "Bob")]
        assert ann.http.get("/api/quickplay").json()["status"] == "idle"
        assert ann.http.get("/api/session").json()["room"] == own["id"]
    finally:
        ann.close()
        bob.close()


def test_quick_play_never_seats_a_person_with_someone_they_blocked(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(quickplay_wait_seconds=30.0, quickplay_tick_seconds=0.05)
    ann, bob, cat = Person(server.base, "Ann"), Person(server.base, "Bob"), Person(server.base, "Cat")
    try:
        blocked = ann.post("/api/social/blocks", {"user": bob.id})
        assert blocked.status_code == 201, blocked.text
        assert ann.post("/api/quickplay", {"mode": "blitz", "seats": 2}).status_code == 200
        assert bob.post("/api/quickplay", {"mode": "blitz", "seats": 2}).status_code == 200
        # Two people wanting the same table, yet no table forms: the block keeps them apart.
        time.sleep(0.6)
        assert ann.http.get("/api/quickplay").json()["status"] == "queued"
        assert bob.http.get("/api/quickplay").json()["status"] == "queued"
        # A third person sits with the first who waited.
        assert cat.post("/api/quickplay", {"mode": "blitz", "seats": 2}).status_code == 200
        a, c = _until_seated(ann), _until_seated(cat)
        assert a["room"] == c["room"]
        assert bob.http.get("/api/quickplay").json()["status"] == "queued"
    finally:
        ann.close()
        bob.close()
        cat.close()
