"""Events frames with only the game's changes (``/ws/rooms/{id}?game=changes``): a socket that asks for them
rebuilds exactly the game every other socket is sent whole, frame by frame, for fewer bytes."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from server_kit import Person, Table

from live_server import ThreadServer
from opolyx.server.play.fanout import game_changes


def _started_with_a_watcher(people: Callable[[str], Person]) -> tuple[Person, Person]:
    """Ann plays an easy bot on a socket that asks for changes; Bob watches on a plain socket."""
    ann, bob = people("Ann"), people("Bob")
    room = ann.create("classic", 2)
    assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
    ann.connect(room["id"], changes=True)
    ann.recv_until("snapshot")
    bob.connect(room["id"])
    bob.recv_until("snapshot")
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    return ann, bob


def _size(frame: dict[str, Any]) -> int:
    return len(json.dumps(frame, separators=(",", ":")))


def test_changes_rebuild_the_game_the_others_are_sent_whole(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann, bob = _started_with_a_watcher(people)
    table = Table(ann, random.Random(5))
    table.absorb(ann.recv_until("snapshot"))
    whole = bob.recv_until("snapshot")["game"]
    assert table.game == whole
    ann.send({"type": "sync"})  # kick off from the current state, whoever's turn it is
    sizes = {"changes": 0, "whole": 0}
    compared = synced = 0
    while compared < 80 and not table.over:
        frame = table.step()
        if frame["type"] == "snapshot":
            synced += 1
            continue
        if frame["type"] != "events":
            continue
        assert "game" not in frame and set(frame["game_changes"]) < set(whole)
        theirs = bob.recv_until("events", seq=frame["seq"])
        assert "game_changes" not in theirs
        assert table.game == theirs["game"], f"seq {frame['seq']}"
        if frame.get("ref") is None:  # the same frame but for its ref and the game's form
            sizes["changes"] += _size(frame)
            sizes["whole"] += _size(theirs)
        compared += 1
        if compared == 40:
            # A snapshot in the middle: the changes that follow apply on top of it.
            ann.send({"type": "sync"})
    assert compared == 80 or table.over
    assert synced >= 1
    # Most actions leave the squares and the rules as they were: the frames are well under half the size.
    assert sizes["changes"] < 0.6 * sizes["whole"], sizes


def test_a_plain_socket_keeps_getting_the_whole_game(server: ThreadServer, people: Callable[[str], Person]) -> None:
    ann, bob = _started_with_a_watcher(people)
    table = Table(ann, random.Random(6))
    table.absorb(ann.recv_until("snapshot"))
    table.p.send({"type": "sync"})  # whoever starts, the first action comes: Ann's roll or the bot's
    mine = table.step()
    while mine["type"] != "events":
        mine = table.step()
    theirs = bob.recv_until("events", seq=mine["seq"])
    assert "game_changes" in mine and "game" not in mine
    assert theirs["game"]["seq"] == mine["seq"] and "game_changes" not in theirs
    # The changes name what an action moved, never what no action touches.
    assert "seq" in mine["game_changes"] and "rules" not in mine["game_changes"]


def test_changes_fall_back_to_the_whole_game_when_members_differ() -> None:
    seen = {"seq": 1, "phase": "turn", "auction": None}
    assert game_changes(seen, {"seq": 2, "phase": "turn", "auction": None}) == {"seq": 2}
    assert game_changes(seen, dict(seen)) == {}
    # A member that appeared or went away cannot be said as "replace these members".
    assert game_changes(seen, {"seq": 2, "phase": "turn"}) is None
    assert game_changes(seen, {**seen, "extra": 1}) is None
