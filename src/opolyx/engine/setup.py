"""Creating and replaying games: the public constructors of the engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from opolyx.engine.errors import IllegalAction
from opolyx.engine.game import Game
from opolyx.rules import load_board, load_cards, load_rules, mode_names


def new_game(
    mode: str,
    seats: int,
    seed: int,
    *,
    dice: Iterable[Sequence[int]] | None = None,
    deck: Sequence[str] | None = None,
    seat_info: Sequence[dict[str, Any]] | None = None,
    first_player: int | None = None,
    rules: dict[str, Any] | None = None,
) -> Game:
    """Start a game of ``mode`` for ``seats`` seats; everything random comes from ``seed``.

    ``dice`` fixes the coming rolls (each tuple is one roll; jackpot and Speed read what they need from
    it) and ``deck`` the card order, for tests and tutorials. ``rules`` overrides mode parameters, e.g.
    ``{"lucky_eight_bonus": 88000}``. ``first_player`` fixes who starts instead of drawing it.
    """
    if mode not in mode_names():
        raise IllegalAction("unknown_mode", f"unknown mode {mode!r}; modes: {', '.join(mode_names())}")
    table = load_rules(mode)
    if rules:
        try:
            table = table.with_changes(**rules)
        except TypeError as exc:
            raise IllegalAction("bad_rules", str(exc)) from exc
    if not isinstance(seats, int) or not table.seats_allowed(seats):
        raise IllegalAction("bad_seats", f"{mode} is played by {_seat_text(table.allowed_seats, table)} seats")
    if deck is not None:
        known = sorted(c.id for c in load_cards())
        if sorted(deck) != known:
            raise IllegalAction("bad_deck", "a fixed deck must hold each of the sixteen cards once")
    if seat_info is not None and len(seat_info) != seats:
        raise IllegalAction("bad_seat_info", "seat_info needs one entry per seat")
    if first_player is not None and not 0 <= first_player < seats:
        raise IllegalAction("bad_seat", "first_player must be a seat")
    dice_list = [list(d) for d in dice] if dice is not None else None
    if dice_list is not None and not all(all(isinstance(v, int) and 1 <= v <= 6 for v in d) for d in dice_list):
        raise IllegalAction("bad_dice", "fixed dice hold values from 1 to 6")
    game = Game(
        table,
        load_board(table.board),
        seats,
        seed,
        dice=dice_list,
        deck=deck,
        seat_info=seat_info,
        first_player=first_player,
    )
    game.setup = {
        "mode": mode,
        "seats": seats,
        "seed": seed,
        "dice": dice_list,
        "deck": list(deck) if deck is not None else None,
        "seat_info": [dict(s) for s in seat_info] if seat_info is not None else None,
        "first_player": first_player,
        "rules": dict(rules) if rules else None,
    }
    return game


def _seat_text(allowed: tuple[int, ...] | None, table: Any) -> str:
    if allowed:
        return " or ".join(str(n) for n in allowed)
    return f"{table.min_seats}–{table.max_seats}"


def replay(
    seed: int,
    mode: str,
    seats: int,
    actions: Iterable[Any],
    **options: Any,
) -> Game:
    """Rebuild a game from its seed and ordered actions; the result equals the original exactly.

    ``actions`` holds ``[seat, action]`` pairs or ``{"seat": .., "action": ..}`` objects.
    """
    game = new_game(mode, seats, seed, **{k: v for k, v in options.items() if v is not None})
    for entry in actions:
        if isinstance(entry, dict):
            seat, action = entry["seat"], entry["action"]
        else:
            seat, action = entry
        game.apply(seat, action)
    return game
