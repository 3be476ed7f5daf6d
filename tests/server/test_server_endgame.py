"""After a game: the end screen's summary (net worth per round, rent, auctions) and the rematch that
seats the same people and bots again."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from server_kit import Person, Table

from live_server import ThreadServer
from opolyx.engine import new_game
from opolyx.server.play.game_stats import summarize


def finished_blitz(ann: Person, bob: Person) -> dict[str, Any]:
    """Ann and Bob against a hard and an easy bot, played to the end; the room as created."""
    room = ann.create("blitz", 4)
    assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
    for strength in ("hard", "easy"):
        assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": strength}).status_code == 200
    ann.connect(room["id"])
    bob.connect(room["id"])
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(Table(bob, random.Random(2)).play()))
    thread.start()
    results.append(Table(ann, random.Random(1)).play())
    thread.join(300)
    assert all(r is not None for r in results)
    return room


def test_summary_and_rematch_after_a_finished_game(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob, cat = people("Ann"), people("Bob"), people("Cat")
    room = finished_blitz(ann, bob)

    summary = ann.http.get(f"/api/games/{room['id']}/summary")
    assert summary.status_code == 200, summary.text
    data = summary.json()
    seats = len(data["players"])
    assert seats == 4
    assert len(data["net_worth"]) == seats and all(len(w) == len(data["rounds"]) for w in data["net_worth"])
    # Sampled from the first round to the one the game ended in: the round limit (25 in Blitz), or earlier when
    # all but one went bankrupt. Which one depends on the people's timing and the hard bot's clock.
    result = data["result"]
    assert data["rounds"][0] == 1 and data["rounds"] == sorted(data["rounds"])
    assert data["rounds"][-1] == result["round"] and (result["round"] >= 25 or result["reason"] != "round_limit")
    # The last sample is each seat's final net worth as the result ranks it.
    final = {p["seat"]: p["net_worth"] for p in data["result"]["placements"]}
    assert {s: data["net_worth"][s][-1] for s in range(seats)} == final
    assert all(row["biggest_rent"] <= row["rent_collected"] for row in data["stats"])
    assert sum(row["rent_collected"] for row in data["stats"]) > 0

    # Only a player of the game may ask; the first to ask opens the room, with the same bots.
    assert cat.post(f"/api/rooms/{room['id']}/rematch").status_code == 403
    first = bob.post(f"/api/rooms/{room['id']}/rematch")
    assert first.status_code == 200, first.text
    again = first.json()
    assert again["id"] != room["id"] and again["mode"] == "blitz" and again["seats"] == 4
    bots = sorted(p["bot"]["strength"] for p in again["players"] if p["kind"] == "bot")
    assert bots == ["easy", "hard"]
    # Ann asks next and lands in the same room: the same four seats, ready to start.
    second = ann.post(f"/api/rooms/{room['id']}/rematch")
    assert second.status_code == 200, second.text
    assert second.json()["id"] == again["id"]
    names = sorted(p["name"] for p in second.json()["players"] if p["kind"] == "human")
    assert names == ["Ann", "Bob"]
    # Asking twice changes nothing, for the one who opened it too.
    assert ann.post(f"/api/rooms/{room['id']}/rematch").json()["id"] == again["id"]
    assert bob.post(f"/api/rooms/{room['id']}/rematch").json()["id"] == again["id"]
    assert len(bob.post(f"/api/rooms/{room['id']}/rematch").json()["players"]) == 4
    assert bob.post(f"/api/rooms/{again['id']}/start").status_code == 200


def test_summary_waits_for_the_end(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann = people("Ann")
    room = ann.create("blitz", 2)
    assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    r = ann.http.get(f"/api/games/{room['id']}/summary")
    assert r.status_code == 409 and r.json()["code"] == "game_not_finished"
    assert ann.post(f"/api/rooms/{room['id']}/rematch").json()["code"] == "game_not_finished"
    assert ann.http.get("/api/games/nope/summary").json()["code"] == "game_not_found"


def test_summarize_counts_rent_as_received() -> None:
    """Rent collected adds what owners received in rent debts; auctions are counted per winner."""
    game = new_game("blitz", 3, 7)
    rng = random.Random(3)
    actions: list[tuple[int | None, dict[str, Any]]] = []
    replay = new_game("blitz", 3, 7)
    received = [0, 0, 0]
    won = [0, 0, 0]
    while not replay.is_over and len(actions) < 3000:
        seat = replay.pending()[0]["seat"]
        legal = [a for a in replay.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
        action = {k: v for k, v in rng.choice(legal).items() if k != "template"}
        actions.append((seat, action))
        for ev in replay.apply(seat, action):
            if ev["type"] == "debt_paid" and ev["reason"] == "rent":
                for c in ev["creditors"]:
                    if c["seat"] is not None:
                        received[c["seat"]] += c["received"]
            if ev["type"] == "auction_won":
                won[ev["seat"]] += 1
    data = summarize(game, actions)
    assert [row["rent_collected"] for row in data["stats"]] == received
    assert [row["auctions_won"] for row in data["stats"]] == won
    assert [w[-1] for w in data["net_worth"]] == [p["net_worth"] for p in replay.snapshot()["players"]]
