"""Team choice over real HTTP (docs/protocol.md "Team choice"): people pick a side before the start, the
seats still alternate between the teams (docs/rules.md §19b), an invite link can carry a side, only the
creator shuffles, and nobody can move anyone but themselves."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_kit import Person, ProcessServer, test_settings

from live_server import ThreadServer
from opolyx.storage.testing import PG_ENV, REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None


def sides(room: dict[str, Any]) -> dict[str, int]:
    """Each seated name's side, checked against the seat's parity (the alternation the rules ask)."""
    out = {}
    for p in room["players"]:
        assert p["team"] == p["seat"] % 2, "a side is the seat's parity: seats alternate between teams"
        out[p["name"]] = p["team"]
    return out


def test_people_choose_a_side_and_seats_still_alternate(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob, cid, dan = people("Ann"), people("Bob"), people("Cid"), people("Dan")
    room = ann.create("team", 4)
    rid = room["id"]
    assert sides(room) == {"Ann": 0}
    # Bob asks for Ann's side when he joins; Cid joins anywhere, then chooses Ann's side too: it is full.
    r = bob.post(f"/api/rooms/{rid}/join", {"team": 0})
    assert sides(r.json()) == {"Ann": 0, "Bob": 0}
    assert sides(cid.post(f"/api/rooms/{rid}/join").json())["Cid"] == 1
    r = cid.post(f"/api/rooms/{rid}/team", {"team": 0})
    assert (r.status_code, r.json()["code"]) == (409, "team_full")
    r = dan.post(f"/api/rooms/{rid}/join", {"team": 0})
    assert r.json()["code"] == "team_full"
    assert dan.http.get("/api/session").json()["room"] is None, "a refused join seats nobody"
    assert dan.post(f"/api/rooms/{rid}/join", {"team": 1}).status_code == 200
    # Bob changes his mind: no free seat on side 1 now.
    assert bob.post(f"/api/rooms/{rid}/team", {"team": 1}).json()["code"] == "team_full"
    assert bob.post(f"/api/rooms/{rid}/team", {"team": 0}).status_code == 200  # already there: nothing moves
    final = ann.http.get(f"/api/rooms/{rid}").json()
    assert sides(final) == {"Ann": 0, "Bob": 0, "Cid": 1, "Dan": 1}
    assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
    ann.connect(rid)
    game = ann.recv_until("snapshot")["game"]
    by_name = {p["name"]: p["team"] for p in game["players"]}
    assert by_name["Ann"] == by_name["Bob"] != by_name["Cid"] == by_name["Dan"], "the chosen sides play together"
    teams = [p["team"] for p in sorted(game["players"], key=lambda p: p["seat"])]
    assert all(teams[i] != teams[(i + 1) % 4] for i in range(4)), "turns alternate between the teams"
    assert cid.post(f"/api/rooms/{rid}/team", {"team": 0}).json()["code"] == "already_started"


def test_moving_to_the_other_side_frees_the_seat_left(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    rid = ann.create("team", 6)["id"]
    bob.post(f"/api/rooms/{rid}/join", {"team": 1})
    r = ann.post(f"/api/rooms/{rid}/team", {"team": 1})
    assert r.status_code == 200
    assert sides(r.json()) == {"Ann": 1, "Bob": 1}
    assert sorted(p["seat"] for p in r.json()["players"]) == [1, 3]
    assert ann.post(f"/api/rooms/{rid}/bots", {"strength": "easy"}).json()["players"][0]["seat"] == 0


def test_nobody_moves_anyone_else_and_only_the_creator_shuffles(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob, eve = people("Ann"), people("Bob"), people("Eve")
    rid = ann.create("team", 4)["id"]
    bob.post(f"/api/rooms/{rid}/join", {"team": 0})
    before = ann.http.get(f"/api/rooms/{rid}").json()
    # Eve is not seated: choosing a side is not a way in, and extra fields (a seat, a user) are refused.
    assert eve.post(f"/api/rooms/{rid}/team", {"team": 1}).json()["code"] == "not_in_room"
    r = eve.post(f"/api/rooms/{rid}/team", {"team": 1, "user": ann.id})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")
    r = bob.post(f"/api/rooms/{rid}/team", {"team": 1, "seat": 0})
    assert r.json()["code"] == "invalid_request"
    assert bob.post(f"/api/rooms/{rid}/team", {"team": 2}).json()["code"] == "invalid_request"
    assert bob.post(f"/api/rooms/{rid}/shuffle").json()["code"] == "not_creator"
    assert eve.post(f"/api/rooms/{rid}/shuffle").json()["code"] == "not_creator"
    assert ann.http.get(f"/api/rooms/{rid}").json()["players"] == before["players"], "nothing moved"
    # Bob moving himself moves only Bob.
    r = bob.post(f"/api/rooms/{rid}/team", {"team": 1})
    assert {p["name"]: p["seat"] for p in r.json()["players"]} == {"Ann": 0, "Bob": 1}
    # The creator's shuffle keeps everyone seated once, on alternating sides.
    ann.post(f"/api/rooms/{rid}/bots", {"strength": "easy"})
    seen_sides = set()
    for _ in range(12):
        r = ann.post(f"/api/rooms/{rid}/shuffle")
        assert r.status_code == 200
        players = r.json()["players"]
        assert sorted(p["name"] for p in players) == ["Ann", "Bob", "Bot 1 (easy)"]
        assert len({p["seat"] for p in players}) == 3
        got = sides(r.json())
        seen_sides.add(got["Ann"] == got["Bob"])
    assert seen_sides == {True, False}, "shuffling deals random sides"


def test_sides_exist_only_in_team_rooms(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = people("Ann"), people("Bob")
    rid = ann.create("classic", 4)["id"]
    assert ann.http.get(f"/api/rooms/{rid}").json()["players"][0]["team"] is None
    assert ann.post(f"/api/rooms/{rid}/team", {"team": 1}).json()["code"] == "not_team_room"
    assert ann.post(f"/api/rooms/{rid}/shuffle").json()["code"] == "not_team_room"
    assert bob.post(f"/api/rooms/{rid}/join", {"team": 1}).json()["code"] == "not_team_room"


def test_an_invite_code_can_carry_a_side(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob, cid = people("Ann"), people("Bob"), people("Cid")
    room = ann.create("team", 4, public=False)
    for friend in (bob, cid):
        r = friend.post("/api/join", {"code": room["code"], "team": 1})
        assert r.status_code == 200, r.text
    assert sides(ann.http.get(f"/api/rooms/{room['id']}").json()) == {"Ann": 0, "Bob": 1, "Cid": 1}


@pytest.mark.skipif(pg_url() is None or REDIS_URL is None, reason=f"cluster test: set {PG_ENV} and {REDIS_ENV}")
def test_sides_and_house_rules_through_the_process_not_owning_the_room(tmp_path: Path) -> None:
    """The new lobby calls carry their arguments to the room's owner across a cluster."""
    with fresh_database("postgresql", tmp_path) as db:
        servers = [
            ProcessServer(test_settings(db, tmp_path / name, redis_url=REDIS_URL, cluster_lease_seconds=1.0,
                                        cluster_adopt_seconds=0.5), tmp_path / f"{name}.log")
            for name in ("a", "b")
        ]
        people: list[Person] = []
        try:
            for s in servers:
                s.start()
            ann = Person(servers[0].base, "Ann")  # creates on A: A owns the room
            bob = Person(servers[1].base, "Bob")
            people += [ann, bob]
            room = ann.post("/api/rooms", {"mode": "team", "seats": 4, "public": False,
                                           "house_rules": {"turn_seconds": 150}}).json()
            rid = room["id"]
            assert bob.post("/api/join", {"code": room["code"], "team": 0}).status_code == 200
            assert sides(bob.http.get(f"/api/rooms/{rid}").json()) == {"Ann": 0, "Bob": 0}
            r = bob.post(f"/api/rooms/{rid}/team", {"team": 1})
            assert r.status_code == 200 and sides(r.json())["Bob"] == 1
            # Ann's own session, used through B.
            ann_on_b = httpx.Client(base_url=servers[1].base, timeout=30,
                                    headers={"Authorization": f"Bearer {ann.token}"})
            r = ann_on_b.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"turn_seconds": 200}})
            assert r.status_code == 200 and r.json()["house_rules"] == {"turn_seconds": 200}
            r = ann_on_b.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"turn_seconds": 2}})
            assert r.json()["code"] == "house_rule_out_of_bounds"
            assert bob.post(f"/api/rooms/{rid}/shuffle").json()["code"] == "not_creator"
            assert ann_on_b.post(f"/api/rooms/{rid}/shuffle", json={}).status_code == 200
            ann_on_b.close()
        finally:
            for p in people:
                p.close()
            for s in servers:
                s.stop()
