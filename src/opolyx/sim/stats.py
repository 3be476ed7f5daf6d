"""What one simulated game leaves behind, and how many of them add up to the balancing figures.

A game is reduced to a small picklable record as it is played (events are read once, never stored),
so worker processes send back kilobytes, and the aggregate is computed in game-index order: the same
master seed gives the same figures whatever the number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from opolyx.bots.loop import EventSink
from opolyx.engine.game import Game
from opolyx.rules import Board

Event = dict[str, Any]
Record = dict[str, Any]


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval: honest near 0 % and 100 % and for small samples, unlike p ± 1.96·se."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def square_group(board: Board, square: int) -> str:
    """A colour group for streets, else the company kind: the unit rent is balanced by."""
    sq = board.squares[square]
    return sq.group if sq.group is not None else sq.kind


#: The event types a collector counts: the simulator has the engine build these alone (``play_game``'s
#: ``event_types``); a collector given every event passes over the others.
COUNTED: Final = frozenset({"moved", "teleported", "turn_started", "jailed", "debt_paid", "game_started",
                            "round_started"})


class GameCollector(EventSink):
    """Folds a game's events into counters as they happen (``play_game``'s ``on_events`` hook)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.jail = next((s.index for s in board.squares if s.kind == "jail"), 10)
        self.groups = [square_group(board, s.index) for s in board.squares]
        self.landings = [0] * len(board.squares)
        self.rent_paid: dict[str, int] = {}
        self.rent_received: dict[str, int] = {}
        self.turns = 0
        self.actions = -1  # the start events are not an action
        self.money: list[int] = []
        self.first = -1  # the seat that began (drawn by the engine): first-player advantage

    def take(self, game: Game, events: list[Event]) -> None:
        self.actions += 1
        for e in events:
            # A ``str``, so that compiled each test below is a native string comparison (the common types
            # first); an event of another type falls through them all.
            kind: str = e["type"]
            if kind == "moved" or kind == "teleported":
                to: int = e["to"]
                landings = self.landings
                landings[to] = landings[to] + 1  # compiled, ``+=`` on a list item is a generic Python call
            elif kind == "turn_started":
                self.turns += 1
            elif kind == "debt_paid":
                square: int | None = e["square"]
                if square is not None and e["reason"] == "rent":
                    g = self.groups[square]
                    amount: int = e["amount"]
                    self.rent_paid[g] = self.rent_paid.get(g, 0) + amount
                    got = 0
                    for c in e["creditors"]:
                        received: int = c["received"]
                        got += received
                    self.rent_received[g] = self.rent_received.get(g, 0) + got
            elif kind == "round_started" or kind == "game_started":
                if kind == "game_started":
                    first: int = e["first"]
                    self.first = first
                # Cash at the start of each round: the money supply the salary and taxes balance.
                cash = 0
                for p in game.players:
                    if not p.out:
                        cash += p.cash
                self.money.append(cash)
            elif kind == "jailed":
                landings = self.landings
                landings[self.jail] = landings[self.jail] + 1


def game_record(game: Game, collector: GameCollector, index: int, seed: int, strengths: Sequence[str]) -> Record:
    result = game.result
    assert result is not None
    if game.rules.teams:
        winners = [pl["seat"] for pl in result["placements"] if pl["place"] == 1]
    else:
        winners = [result["winner"]]
    return {
        "index": index,
        "seed": seed,
        "strengths": list(strengths),
        "winner": result["winner"],
        "winners": sorted(winners),
        "first": collector.first,
        "reason": result["reason"],
        "rounds": result["round"],
        "turns": collector.turns,
        "actions": collector.actions,
        "landings": collector.landings,
        "rent_paid": collector.rent_paid,
        "rent_received": collector.rent_received,
        "money": collector.money,
    }


def _percentile(sorted_values: list[int], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def _rate(wins: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(wins, n)
    return {"wins": wins, "games": n, "rate": wins / n if n else 0.0, "ci95": [lo, hi]}


def aggregate(records: list[Record], board: Board, seats: int) -> dict[str, Any]:
    """Every balancing figure from the per-game records (which must be in game-index order)."""
    n = len(records)
    rounds = sorted(r["rounds"] for r in records)
    reasons: dict[str, int] = {}
    seat_wins = [0] * seats
    bot_wins: dict[str, int] = {}
    bot_games: dict[str, int] = {}
    landings = [0] * len(board.squares)
    rent_paid: dict[str, int] = {}
    rent_received: dict[str, int] = {}
    money_sum: list[int] = []
    money_n: list[int] = []
    turns = actions = 0
    first_wins = 0
    fair_share = 0.0
    for r in records:
        if r.get("first", -1) in r["winners"]:
            first_wins += 1
        fair_share += len(r["winners"]) / seats
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        for s in r["winners"]:
            seat_wins[s] += 1
        for s, strength in enumerate(r["strengths"]):
            bot_games[strength] = bot_games.get(strength, 0) + 1
            if s in r["winners"]:
                bot_wins[strength] = bot_wins.get(strength, 0) + 1
        for i, c in enumerate(r["landings"]):
            landings[i] += c
        for g, v in r["rent_paid"].items():
            rent_paid[g] = rent_paid.get(g, 0) + v
        for g, v in r["rent_received"].items():
            rent_received[g] = rent_received.get(g, 0) + v
        for k, m in enumerate(r["money"]):
            if k == len(money_sum):
                money_sum.append(0)
                money_n.append(0)
            money_sum[k] += m
            money_n[k] += 1
        turns += r["turns"]
        actions += r["actions"]
    total_landings = sum(landings) or 1
    width = max(1, math.ceil((rounds[-1] if rounds else 1) / 20))
    histogram: dict[str, int] = {}
    for x in rounds:
        lo = (x - 1) // width * width + 1
        key = f"{lo}-{lo + width - 1}"
        histogram[key] = histogram.get(key, 0) + 1
    groups = [g for g, _ in board.groups.items()] + ["dealership", "utility"]
    return {
        "games": n,
        "player_turns": turns,
        "actions": actions,
        "player_turns_per_game": turns / n if n else 0.0,
        "rounds": {
            "mean": sum(rounds) / n if n else 0.0,
            "min": rounds[0] if rounds else 0,
            "p10": _percentile(rounds, 0.1),
            "median": _percentile(rounds, 0.5),
            "p90": _percentile(rounds, 0.9),
            "max": rounds[-1] if rounds else 0,
            "histogram": histogram,
        },
        "end_reasons": {k: {"games": v, "share": v / n} for k, v in sorted(reasons.items())},
        "win_rate_by_seat": {str(s): _rate(seat_wins[s], n) for s in range(seats)},
        # The seat that began wins this often; ``fair`` is the rate with no advantage (1/seats, 1/2 in Team).
        "first_player": {**_rate(first_wins, n), "fair": fair_share / n if n else 0.0},
        "win_rate_by_bot": {b: _rate(bot_wins.get(b, 0), bot_games[b]) for b in sorted(bot_games)},
        "landing_frequency": [
            {"square": i, "id": board.squares[i].id, "landings": c, "share": c / total_landings}
            for i, c in enumerate(landings)
        ],
        "rent_by_group": {
            g: {
                "paid": rent_paid.get(g, 0),
                "received": rent_received.get(g, 0),
                "paid_per_game": rent_paid.get(g, 0) / n if n else 0.0,
            }
            for g in groups
        },
        "money_in_play": [
            {"round": k + 1, "mean_cash": money_sum[k] / money_n[k], "games": money_n[k]}
            for k in range(len(money_sum))
        ],
    }
