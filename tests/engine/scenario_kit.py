"""Helpers for scenario tests: build a game through the public API, hand-build a position, assert refusals.

Hand-built positions set state directly on the Game object (owners, levels, mortgages, cash, positions);
the rule under test is then always driven through ``apply``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

import opolyx
from opolyx import Game, IllegalAction
from opolyx.rules import load_cards

#: Deck ids in the order of cards.json.
CARDS: list[str] = [c.id for c in load_cards()]


def deck_with(*first: str) -> list[str]:
    """A full deck of sixteen whose top cards are ``first`` (in that order)."""
    return [*first, *(c for c in CARDS if c not in first)]


def make(
    mode: str = "classic",
    seats: int = 2,
    dice: Iterable[Sequence[int]] = (),
    deck: Sequence[str] | None = None,
    *,
    seat_info: Sequence[dict[str, Any]] | None = None,
    first_player: int = 0,
    seed: int = 7,
) -> Game:
    return opolyx.new_game(
        mode,
        seats,
        seed,
        dice=[tuple(d) for d in dice],
        deck=list(deck) if deck is not None else list(CARDS),
        seat_info=seat_info,
        first_player=first_player,
    )


def setup(
    game: Game,
    seat: int,
    *,
    cash: int | None = None,
    position: int | None = None,
    owns: Iterable[int] = (),
    levels: dict[int, int] | None = None,
    mortgaged: Iterable[int] = (),
    in_jail: bool | None = None,
) -> None:
    """Hand-build part of a position for ``seat``."""
    p = game.players[seat]
    if cash is not None:
        p.cash = cash
    if position is not None:
        p.position = position
    if in_jail is not None:
        p.in_jail = in_jail
        if in_jail:
            p.position = 10
    for i in owns:
        game.owner[i] = seat
    for i, lvl in (levels or {}).items():
        game.owner[i] = seat
        game.level[i] = lvl
    for i in mortgaged:
        game.owner[i] = seat
        game.mortgaged[i] = True


def state(game: Game) -> str:
    return json.dumps(game.snapshot(), sort_keys=True)


def refuse(game: Game, seat: int | None, action: dict[str, Any], code: str) -> None:
    """``action`` raises IllegalAction with ``code`` and leaves snapshot() byte-identical."""
    before = state(game)
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    assert info.value.code == code, str(info.value)
    assert state(game) == before


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def find(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"{kind}: {found} in {kinds(events)}"
    return found[0]


def cash(game: Game) -> list[int]:
    return [p["cash"] for p in game.snapshot()["players"]]


def legal_types(game: Game, seat: int) -> set[str]:
    return {a["type"] for a in game.legal_actions(seat)}


def timeout(game: Game, **extra: Any) -> list[dict[str, Any]]:
    return game.apply(None, {"type": "timeout", **extra})


def pending_seat(game: Game) -> tuple[int, str]:
    first = game.snapshot()["pending"][0]
    return first["seat"], first["decision"]
