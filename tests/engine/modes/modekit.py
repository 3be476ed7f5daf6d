"""Small helpers for the mode scenario tests: build a game with fixed dice and drive it through the
public API (``apply``, ``legal_actions``, ``snapshot``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import opolyx
from opolyx import Game

Events = list[dict[str, Any]]


def make(
    mode: str,
    seats: int = 2,
    dice: Iterable[Sequence[int]] = (),
    *,
    seed: int = 7,
    deck: Sequence[str] | None = None,
    **options: Any,
) -> Game:
    """A game where seat 0 starts and the given dice come first (random ones follow)."""
    return opolyx.new_game(mode, seats, seed, dice=list(dice) or None, deck=deck, first_player=0, **options)


def act(game: Game, seat: int | None, kind: str, **fields: Any) -> Events:
    return game.apply(seat, {"type": kind, **fields})


def of(events: Events, kind: str) -> Events:
    return [e for e in events if e["type"] == kind]


def snap(game: Game) -> dict[str, Any]:
    return game.snapshot()


def cash(game: Game, seat: int) -> int:
    return int(game.snapshot()["players"][seat]["cash"])


def player(game: Game, seat: int) -> dict[str, Any]:
    return dict(game.snapshot()["players"][seat])


def square(game: Game, i: int) -> dict[str, Any]:
    return dict(game.snapshot()["squares"][i])


def pending(game: Game) -> dict[str, Any]:
    return dict(game.snapshot()["pending"][0])


def types(game: Game, seat: int) -> list[str]:
    return [a["type"] for a in game.legal_actions(seat)]


def dump(game: Game) -> str:
    return json.dumps(game.snapshot(), sort_keys=True)


def money_conserved(game: Game) -> bool:
    """Sum of cash == seats × starting cash + what the bank paid out − what it took in."""
    s = game.snapshot()
    total = sum(p["cash"] for p in s["players"])
    return bool(total == s["seats"] * game.rules.starting_cash + s["bank"]["paid"] - s["bank"]["received"])


def default_step(game: Game, *, buy: bool = False) -> Events:
    """Take the safe default for whatever decision is pending: roll, decline, pass, pay."""
    p = pending(game)
    seat, decision = p["seat"], p["decision"]
    legal = game.legal_actions(seat)
    kinds = [a["type"] for a in legal]
    s = game.snapshot()
    if decision == "roll":
        return act(game, seat, "roll")
    if decision == "jail":
        return act(game, seat, "jail_roll")
    if decision == "buy":
        return act(game, seat, "buy" if buy and "buy" in kinds else "decline")
    if decision == "bid":
        return act(game, seat, "pass")
    if decision == "pay":
        if "pay" in kinds:
            return act(game, seat, "pay")
        return game.apply(None, {"type": "timeout"})  # the engine raises the cash itself, or goes bankrupt
    if decision == "jackpot":
        return act(game, seat, "jackpot_decline")
    if decision == "bus":
        return act(game, seat, "choose_bus", use="sum")
    if decision == "teleport":
        return act(game, seat, "teleport", square=s["players"][seat]["position"])
    raise AssertionError(f"unexpected decision {decision!r}")


def finish_turn(game: Game, *, buy: bool = False) -> Events:
    """Default every decision until the next turn starts (or the game ends); returns all events."""
    out: Events = []
    while not game.is_over:
        events = default_step(game, buy=buy)
        out.extend(events)
        if of(events, "turn_started"):
            break
    return out


def play_until(game: Game, *, round_no: int, seat: int, buy: bool = False) -> Events:
    """Play default turns until ``seat``'s turn in round ``round_no`` has just begun."""
    out: Events = []
    while True:
        s = game.snapshot()
        if s["round"] == round_no and s["turn"] == seat:
            return out
        assert not s["over"] and s["round"] <= round_no, f"missed round {round_no}, seat {seat}"
        out.extend(finish_turn(game, buy=buy))
