"""The end screen's numbers for a finished game: each seat's net worth round by round, the rent it
collected, its biggest single rent and the auctions it won.

Nothing here is stored: a game is its seed plus its actions, so the summary replays them with the engine
and reads the engine's own events (``debt_paid`` of rent debts, ``auction_won``) and snapshots
(``net_worth``). The server only counts; the rules stay in the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.server.engine_api import GameLike


def _worth(snap: JSON) -> list[int]:
    return [int(p["net_worth"]) for p in snap["players"]]


def summarize(game: GameLike, actions: Iterable[tuple[int | None, JSON]]) -> JSON:
    """Replay ``actions`` on the freshly created ``game`` and add up the figures of the end screen.

    ``rounds[k]`` is the round at which ``net_worth[seat][k]`` was taken: at the start, at the start of
    every round, and once more at the end.
    """
    snap = game.snapshot()
    seats = len(snap["players"])
    rounds: list[int] = [int(snap["round"])]
    worth: list[list[int]] = [[w] for w in _worth(snap)]
    stats: list[dict[str, Any]] = [
        {"seat": s, "rent_collected": 0, "biggest_rent": 0, "auctions_won": 0} for s in range(seats)
    ]
    for seat, action in actions:
        events = game.apply(seat, action)
        for ev in events:
            if ev["type"] == "debt_paid" and ev.get("reason") == "rent":
                for c in ev["creditors"]:
                    if c["seat"] is not None and c["received"]:
                        row = stats[int(c["seat"])]
                        row["rent_collected"] += int(c["received"])
                        row["biggest_rent"] = max(row["biggest_rent"], int(c["received"]))
            elif ev["type"] == "auction_won":
                stats[int(ev["seat"])]["auctions_won"] += 1
        if any(ev["type"] == "round_started" for ev in events):
            snap = game.snapshot()
            rounds.append(int(snap["round"]))
            for s, w in enumerate(_worth(snap)):
                worth[s].append(w)
    snap = game.snapshot()
    rounds.append(int(snap["round"]))
    for s, w in enumerate(_worth(snap)):
        worth[s].append(w)
    return {"rounds": rounds, "net_worth": worth, "stats": stats, "result": snap.get("result")}
