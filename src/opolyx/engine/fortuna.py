"""Fortuna (docs/rules.md §18): the gods, the red envelope and the lucky eight.

The Temple of Wealth (square 20) and the two god cards call ``grant_god``; ``cards`` splits the red
envelope with ``red_envelope``; every roll checks ``lucky_eight``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import kernel

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def lucky_eight(game: GameState, seat: int, total: int) -> None:
    """A white-dice total of exactly 8 pays the bonus (0, i.e. off, outside Fortuna)."""
    if game.rules.lucky_eight_bonus and total == 8:
        kernel.bank_pays(game, seat, game.rules.lucky_eight_bonus, "lucky_eight")


def grant_god(game: GameState, seat: int, god: str) -> None:
    """One god at a time: a new one replaces the old, for ``god_rounds`` rounds."""
    p = game.players[seat]
    p.god = god
    p.god_until = game.round + game.rules.god_rounds
    game.emit("god_arrived", seat=seat, god=god, until_round=p.god_until)


def dismiss_god(game: GameState, seat: int) -> None:
    """At the start of its holder's turn, a god whose rounds are over leaves."""
    p = game.players[seat]
    if p.god is not None and game.round >= p.god_until:
        game.emit("god_left", seat=seat, god=p.god)
        p.god = None


def red_envelope(game: GameState, total: int, parts: int) -> list[int]:
    """Split ``total`` at random into ``parts`` shares in steps of 10 (docs/rules.md §18)."""
    unit = 10
    units = total // unit
    cuts = sorted(game.rng.randint(0, units) for _ in range(parts - 1))
    bounds = [0, *cuts, units]
    shares = [(bounds[k + 1] - bounds[k]) * unit for k in range(parts)]
    shares[-1] += total - units * unit
    return shares
