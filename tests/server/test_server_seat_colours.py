"""Seat colours over real HTTP (issue #43 item 9): a seated person picks one of the six colours before the
start, everyone in the room sees it, the server keeps colours unique (a colour another player picked is
refused with ``colour_taken`` and changes nothing), and nobody outside the seats can pick."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from server_kit import Person

from live_server import ThreadServer
from opolyx.server.play.seat_colours import seat_colours


def colours(room: dict[str, Any]) -> dict[str, int]:
    out = {p["name"]: p["colour"] for p in room["players"]}
    assert len(set(out.values())) == len(out), f"colours repeat at the table: {out}"
    return out


def test_people_pick_colours_and_the_server_keeps_them_unique(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob, eve = people("Ann"), people("Bob"), people("Eve")
    room = ann.create("classic", 3)
    rid = room["id"]
    assert colours(room) == {"Ann": 0}
    assert colours(bob.post(f"/api/rooms/{rid}/join").json()) == {"Ann": 0, "Bob": 1}
    # Bob takes Ann's default colour: Ann had not picked it, so she moves to the lowest free one.
    r = bob.post(f"/api/rooms/{rid}/colour", {"colour": 0})
    assert r.status_code == 200
    assert colours(r.json()) == {"Bob": 0, "Ann": 1}
    # Ann wants it back: Bob picked it first, refused, nothing changes.
    r = ann.post(f"/api/rooms/{rid}/colour", {"colour": 0})
    assert (r.status_code, r.json()["code"]) == (409, "colour_taken")
    assert colours(ann.http.get(f"/api/rooms/{rid}").json()) == {"Bob": 0, "Ann": 1}
    assert colours(ann.post(f"/api/rooms/{rid}/colour", {"colour": 4}).json()) == {"Bob": 0, "Ann": 4}
    # Not seated: no pick. Out of the palette: refused by the schema.
    assert eve.post(f"/api/rooms/{rid}/colour", {"colour": 2}).json()["code"] == "not_seated"
    assert bob.post(f"/api/rooms/{rid}/colour", {"colour": 6}).status_code == 422
    # After the start the colours are fixed.
    assert ann.post(f"/api/rooms/{rid}/bots", {"strength": "easy"}).status_code == 200
    assert ann.post(f"/api/rooms/{rid}/start").status_code == 200
    assert bob.post(f"/api/rooms/{rid}/colour", {"colour": 3}).json()["code"] == "already_started"
    final = colours(ann.http.get(f"/api/rooms/{rid}").json())
    assert final["Bob"] == 0 and final["Ann"] == 4


@dataclass
class Seat:
    seat: int
    user_id: str | None


@given(
    st.lists(st.booleans(), min_size=1, max_size=6),
    st.dictionaries(st.integers(0, 5), st.integers(0, 5)),
)
def test_colours_are_always_unique_and_in_the_palette(humans: list[bool], picks: dict[int, int]) -> None:
    seats = [Seat(i, f"u{i}" if human else None) for i, human in enumerate(humans)]
    picked = {f"u{k}": c for k, c in picks.items()}
    out = seat_colours(seats, picked)
    assert sorted(out) == list(range(len(seats)))
    assert len(set(out.values())) == len(seats) and all(0 <= c < 6 for c in out.values())
