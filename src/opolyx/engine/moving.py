"""Moving a token (docs/rules.md §§1 and 4): by a number of squares or forward to a square, with the Start
salary and landing bonus. Resolving the square reached is the turn flow's (``turns.resolve``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import kernel

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def move_by(game: GameState, seat: int, steps: int) -> None:
    """Move ``steps`` squares (negative: back); passing Start pays the salary, landing on it the bonus too."""
    p = game.players[seat]
    n = len(game.board.squares)
    start = p.position
    dest = (start + steps) % n
    p.position = dest
    game.emit_data("moved", {"seat": seat, "to": dest, "steps": steps, "from": start})
    if steps > 0 and start + steps >= n:
        pay_salary(game, seat, landed=dest == 0)


def move_to(game: GameState, seat: int, target: int) -> None:
    """Move forward to ``target`` (a whole lap when already there), with the salary like any forward move."""
    n = len(game.board.squares)
    steps = (target - game.players[seat].position) % n
    if steps == 0:
        steps = n
    move_by(game, seat, steps)


def pay_salary(game: GameState, seat: int, *, landed: bool) -> None:
    """Salary and landing bonus are bank money, never taxed."""
    amount = game.rules.salary + (game.rules.start_landing_bonus if landed else 0)
    kernel.bank_pays(game, seat, amount, "start_landing" if landed else "salary")
