"""The issue's farming routes, tried through a real server by scripted clients (small numbers; the rates
per hour are benchmarks/farming.py's): none pays beyond what honest play pays."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from server_kit import Person, Table

from live_server import ThreadServer
from opolyx.progression import game_xp


def _play_all(tables: list[Table], seconds: float = 400) -> None:
    failures: list[BaseException] = []

    def run(t: Table) -> None:
        try:
            t.play(max_seconds=seconds)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=seconds + 50)
    assert not failures, failures


def _over(p: Person) -> dict[str, Any]:
    return next(f for f in reversed(p.frames) if f["type"] == "events" and f["over"])


def _pair(server: ThreadServer, sources: tuple[str | None, str | None]) -> tuple[Person, Person, str]:
    main, alt = Person(server.base, "Main"), Person(server.base, "Alt")
    room = main.create("blitz", 2)
    assert alt.post(f"/api/rooms/{room['id']}/join").status_code == 200
    main.connect(room["id"], source=sources[0])
    alt.connect(room["id"], source=sources[1])
    return main, alt, str(room["id"])


def test_two_sessions_of_one_person_resigning_in_round_ten_earn_nothing(
    start_server: Callable[..., ThreadServer],
) -> None:
    """Route 1: two guest sessions on one machine in a two-seat room, the puppet resigning in round 10.
    The waiting room already says only one of the two could earn; at the end neither does."""
    server = start_server(xp_time_scale=0.0)
    main, alt = Person(server.base, "Main"), Person(server.base, "Alt")
    room = str(main.create("blitz", 2)["id"])
    try:
        assert alt.post(f"/api/rooms/{room}/join").status_code == 200
        # Main's first snapshot is read before the second session connects: until then it is alone.
        main.connect(room)
        assert main.recv_until("snapshot")["room"]["xp"]["shared"] is False, "alone at the table so far"
        alt.connect(room)
        assert alt.recv_until("snapshot")["room"]["xp"]["shared"] is True, "two seats, one machine"
        assert main.post(f"/api/rooms/{room}/start").status_code == 200
        _play_all([Table(main, random.Random(1)), Table(alt, random.Random(2), resign_at=10)])
        over = _over(main)
        assert over["result"]["round"] >= 10, "the puppet resigned in round 10: a paying game"
        assert {(p["xp"], p["refused"]) for p in over["progression"]} == {(0, "same_person")}
        for p in (main, alt):
            assert p.http.get("/api/profile").json()["user"]["xp"] == 0
    finally:
        main.close()
        alt.close()


def test_the_same_game_between_two_machines_pays_both_people(start_server: Callable[..., ThreadServer]) -> None:
    """The guard's near miss: two people on two addresses, both playing to the end, are paid."""
    server = start_server(xp_time_scale=0.0)
    main, alt, room = _pair(server, (None, "127.0.0.2"))
    try:
        assert main.post(f"/api/rooms/{room}/start").status_code == 200
        _play_all([Table(main, random.Random(1)), Table(alt, random.Random(2))])
        over = _over(main)
        assert over["result"]["round"] >= 10
        expected = game_xp(over["result"], over["game"])
        got = {p["seat"]: p for p in over["progression"]}
        assert {p["refused"] for p in got.values()} == {None}
        assert {s: p["xp"] for s, p in got.items()} == {s: expected[s].total for s in got}
    finally:
        main.close()
        alt.close()


def test_an_alt_idling_beside_a_bot_earns_nothing(start_server: Callable[..., ThreadServer]) -> None:
    """Route 3: an alt (from another address, so the server cannot tell) sits beside the farmer and a bot
    and never plays: the clock plays its turns until it forfeits, and it earns nothing. The farmer earns
    what anyone playing that game earns, no more."""
    server = start_server(xp_time_scale=0.0, clock_scale=0.005)
    main, alt = Person(server.base, "Main"), Person(server.base, "Alt")
    try:
        room = main.create("blitz", 3)
        assert alt.post(f"/api/rooms/{room['id']}/join").status_code == 200
        assert main.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
        main.connect(room["id"])
        assert main.post(f"/api/rooms/{room['id']}/start").status_code == 200
        _play_all([Table(main, random.Random(3))])
        over = _over(main)
        got = {p["seat"]: p for p in over["progression"]}
        alt_seat = next(p["seat"] for p in over["game"]["players"] if p["name"] == "Alt")
        assert got[alt_seat]["xp"] == 0
        assert got[alt_seat]["refused"] in ("not_played", "early_exit", "short_game")
        main_seat = next(s for s in got if s != alt_seat)
        if over["result"]["round"] >= 10:
            expected = game_xp(over["result"], over["game"])[main_seat]
            assert got[main_seat]["xp"] <= expected.total
        assert alt.http.get("/api/profile").json()["user"]["xp"] == 0
    finally:
        main.close()
        alt.close()
