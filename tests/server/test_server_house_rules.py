"""House rules over real HTTP and sockets: a creator's changes to the mode, refused out of bounds with a
stable code (changing nothing), shown to everyone, played by the engine, kept across a restart and in the
replay, and paying no XP (the room is unrated)."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import httpx
from server_kit import Person, Table

import opolyx.engine
from live_server import ThreadServer
from opolyx import fairness
from opolyx.server import Settings
from rigged_engine import RiggedEngine

LONG = {"turn_seconds": 180, "auction_seconds": 30, "starting_cash": 30000, "jackpot": False}


def create(person: Person, mode: str, seats: int, house_rules: Any, **extra: Any) -> httpx.Response:
    return person.post("/api/rooms", {"mode": mode, "seats": seats, "house_rules": house_rules, **extra})


def test_bad_house_rules_are_refused_with_a_code_and_make_no_room(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    for rules, code in (
        ({"starting_cash": 999_999}, "house_rule_out_of_bounds"),
        ({"turn_seconds": 5}, "house_rule_out_of_bounds"),
        ({"turn_seconds": "75"}, "house_rule_out_of_bounds"),
        ({"salary": 2000.5}, "house_rule_out_of_bounds"),
        ({"free_parking": True}, "house_rule_unknown"),
        ({"teams": True}, "house_rule_unknown"),
        ({"rent_tax_start": 300}, "house_rules_inconsistent"),
    ):
        r = create(ann, "classic", 2, rules)
        assert (r.status_code, r.json()["code"]) == (422, code), rules
    r = create(ann, "halal", 2, {"jackpot": True})
    assert r.json()["code"] == "house_rule_not_in_mode"
    assert ann.http.get("/api/session").json()["room"] is None, "a refused table makes no room"
    assert httpx.get(server.base + "/api/rooms").json()["waiting"] == []


def test_the_lobby_and_the_room_show_every_change_and_that_it_is_unrated(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    # A value equal to the mode's is no change: Speed's 45 s turn stays out of the list.
    r = create(ann, "speed", 3, {**LONG, "turn_seconds": 45, "mortgage_expiry_rounds": None})
    assert r.status_code == 201, r.text
    room = r.json()
    assert room["rated"] is False
    assert room["house_rules"] == {"auction_seconds": 30, "jackpot": False, "mortgage_expiry_rounds": None,
                                   "starting_cash": 30000}
    assert room["house_changes"] == [
        {"key": "starting_cash", "default": 15000, "value": 30000},
        {"key": "auction_seconds", "default": 10, "value": 30},
        {"key": "jackpot", "default": True, "value": False},
        {"key": "mortgage_expiry_rounds", "default": 10, "value": None},
    ]
    listed = next(x for x in httpx.get(server.base + "/api/rooms").json()["waiting"] if x["id"] == room["id"])
    assert listed["house_changes"] == room["house_changes"] and listed["rated"] is False
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    assert bob.http.get(f"/api/rooms/{room['id']}").json()["house_changes"] == room["house_changes"]


def test_only_the_creator_changes_house_rules_before_the_start(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    room = ann.create("classic", 2)
    rid = room["id"]
    assert room["rated"] is True and room["house_rules"] is None and room["house_changes"] == []
    assert bob.post(f"/api/rooms/{rid}/join").status_code == 200
    r = bob.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"salary": 0}})
    assert (r.status_code, r.json()["code"]) == (403, "not_creator")
    r = ann.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"salary": 5000, "round_limit": 40}})
    assert r.status_code == 200 and r.json()["rated"] is False
    r = ann.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"salary": 5000, "round_limit": 4}})
    assert (r.status_code, r.json()["code"]) == (422, "house_rule_out_of_bounds")
    view = bob.http.get(f"/api/rooms/{rid}").json()
    assert view["house_rules"] == {"salary": 5000, "round_limit": 40}, "a refused change leaves the rules as they were"
    # Back to the mode's values: a standard, rated room again.
    r = ann.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"salary": 2000}})
    assert r.json()["house_rules"] is None and r.json()["rated"] is True
    ann.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": {"jail_bail": 0}})
    assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
    r = ann.http.put(f"/api/rooms/{rid}/house-rules", json={"house_rules": None})
    assert r.json()["code"] == "already_started"


def _game(person: Person, room_id: str) -> dict[str, Any]:
    person.connect(room_id)
    while True:
        snap = person.recv_until("snapshot")
        if snap["game"] is not None:
            return snap


def test_the_game_plays_the_house_rules_and_keeps_them_across_a_restart(
    settings_for: Callable[..., Settings],
) -> None:
    settings = settings_for()
    # Ann begins, so the first snapshot is the table as dealt (the bots wait for her).
    with ThreadServer(settings, lambda: RiggedEngine(first_player=0)) as server:
        ann = Person(server.base, "Ann")
        r = create(ann, "classic", 3, LONG)
        rid = r.json()["id"]
        for _ in range(2):
            ann.post(f"/api/rooms/{rid}/bots", {"strength": "easy"})
        assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
        snap = _game(ann, rid)
        rules = snap["game"]["rules"]
        assert (rules["turn_seconds"], rules["auction_seconds"], rules["corner_20"]) == (180, 30, "rest_area")
        assert {p["cash"] for p in snap["game"]["players"]} == {30000}
        turn = [d for d in snap["deadlines"] if d["kind"] == "turn"]
        assert [d["seconds"] for d in turn] == [180], "Ann's turn runs on the lengthened clock"
        assert turn[0]["remaining"] > 75
        table = Table(ann, random.Random(2))
        table.p.send({"type": "sync"})
        while table.seq < 12 or table.awaiting is not None:
            table.step()
        ann.send({"type": "sync"})
        before = ann.recv_until("snapshot")
        ann.close()
    with ThreadServer(settings, lambda: RiggedEngine(first_player=0)) as server:
        ann2 = Person(server.base, "Ann")  # a fresh guest: watching a public game is enough to compare
        try:
            view = ann2.http.get(f"/api/rooms/{rid}").json()
            assert view["house_rules"] == {"auction_seconds": 30, "jackpot": False, "starting_cash": 30000,
                                           "turn_seconds": 180}
            ann2.connect(rid)
            after = ann2.recv_until("snapshot")
            assert after["seq"] >= before["seq"]
            assert after["game"]["rules"] == before["game"]["rules"], "the restarted game plays the same variant"
            if after["seq"] == before["seq"]:
                assert after["game"]["players"] == before["game"]["players"]
        finally:
            ann2.close()


def test_a_house_rule_game_pays_no_xp_and_its_replay_keeps_the_rules(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = people("Ann"), people("Bob")
    r = create(ann, "blitz", 2, {"round_limit": 10, "starting_cash": 20000})
    rid = r.json()["id"]
    assert bob.post(f"/api/rooms/{rid}/join").status_code == 200
    ann.connect(rid)
    bob.connect(rid)
    assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
    tables = [Table(ann, random.Random(3)), Table(bob, random.Random(4))]
    failures: list[BaseException] = []

    def run(t: Table) -> None:
        try:
            t.play(max_seconds=400)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=450)
    assert not failures, failures
    over = next(f for f in reversed(ann.frames) if f["type"] == "events" and f["over"])
    assert over["result"]["round"] <= 10
    for got in over["progression"]:
        assert (got["xp"], got["refused"], got["won"]) == (0, "house_rules", False)
    if over["result"]["round"] == 10 and over["result"]["reason"] == "round_limit":
        # The standard table would have paid this game: the refusal, not the game, kept the XP away.
        assert any(got["parts"]["total"] > 0 for got in over["progression"])
    for person in (ann, bob):
        assert person.http.get("/api/profile").json()["user"]["xp"] == 0
    replay = ann.http.get(f"/games/{rid}/replay", params={"snapshots": "true", "limit": 1}).json()
    assert replay["house_rules"] == {"round_limit": 10, "starting_cash": 20000}
    assert {p["cash"] for p in replay["snapshots"][0]["players"]} == {20000}
    # Anyone can recompute the game from its revealed seed, on the same table (``opolyx verify``).
    full = ann.http.get(f"/games/{rid}/replay", params={"events": "true"}).json()
    report = fairness.verify(full, opolyx.engine)
    assert report.ok, report.mismatches
    assert report.steps == full["total_actions"]
    # Rules changed in the file after the game do not verify: the game was played on the stored table.
    for changed in ({**full["house_rules"], "starting_cash": 21000}, None):
        report = fairness.verify({**full, "house_rules": changed}, opolyx.engine)
        assert not report.ok
    report = fairness.verify({**full, "house_rules": {"teams": True}}, opolyx.engine)
    assert not report.ok and "house_rule_unknown" in report.mismatches[0]
    # A rematch plays the same table, unrated again.
    again = ann.post(f"/api/rooms/{rid}/rematch").json()
    assert again["house_rules"] == {"round_limit": 10, "starting_cash": 20000} and again["rated"] is False
