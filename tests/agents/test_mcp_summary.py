"""The agents' readable state: whatever the game looks like, the summary names what a player must know."""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opolyx
from opolyx.mcp.summary import summarize
from opolyx.rules import load_board
from opolyx.server.play.botplay import fallback_action


def room_for(game: dict[str, Any], mode: str) -> dict[str, Any]:
    players = [
        {"seat": p["seat"], "name": p["name"], "kind": "human" if p["seat"] == 0 else "bot", "agent": p["seat"] == 0}
        for p in game["players"]
    ]
    return {"id": "r1", "mode": mode, "status": "running", "seats": len(players), "players": players, "code": None}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), mode=st.sampled_from(["blitz", "fortuna", "halal"]), seats=st.integers(2, 4))
def test_the_summary_names_every_player_holdings_and_who_must_decide(seed: int, mode: str, seats: int) -> None:
    game = opolyx.new_game(mode, seats, seed)
    rng = random.Random(seed)
    board = load_board(game.snapshot()["board"])
    for step in range(3000):
        snap = game.snapshot()
        if step % 25 == 0 or snap["over"]:
            text = summarize(room_for(snap, mode), {"seat": 0}, snap, [])
            assert f"Round {snap['round']} of {snap['rules']['round_limit']}" in text
            for p in snap["players"]:
                assert f"seat {p['seat']} {p['name']}" in text
                if not p["out"]:
                    assert f"cash {p['cash']}" in text
                    assert board.squares[p["position"]].name in text
            if snap["over"]:
                assert "Game over" in text
                break
            for entry in snap["pending"]:
                assert f"seat {entry['seat']} to {entry['decision']}" in text
            for sq in snap["squares"]:
                square = board.squares[sq["index"]]
                if sq["owner"] is not None and square.kind == "street":
                    # The numbers a decision needs: the group, how much of it is held, and the cost of a
                    # build level once it is complete.
                    group = [s for s in board.squares if s.kind == "street" and s.group == square.group]
                    held = sum(1 for s in group if snap["squares"][s.index]["owner"] == sq["owner"])
                    assert re.search(rf"{square.group} [0-9, LA-Za-z]*\b{square.index}\b", text), text
                    assert f"({held}/{len(group)}" in text
                    if held == len(group):
                        assert f"build {square.level_cost}" in text
            if snap["offer"] is not None:
                assert f"For sale: {snap['offer']} {board.squares[snap['offer']].name}" in text
            assert "[you]" in text
        seat = snap["pending"][0]["seat"]
        action = fallback_action(game.legal_actions(seat), rng)
        assert action is not None
        game.apply(seat, action)


def test_before_the_start_and_without_a_room() -> None:
    assert "Not in a room" in summarize(None, None, None, [])
    room = {
        "id": "r1", "mode": "blitz", "status": "waiting", "seats": 3, "code": "K7Q2MXW4",
        "players": [{"seat": 0, "name": "Ada", "kind": "human", "agent": True}],
    }
    text = summarize(room, {"seat": 0}, None, [])
    assert "join code K7Q2MXW4" in text and "1 of 3 seats filled" in text and "Ada (agent)" in text
