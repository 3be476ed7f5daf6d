"""Jail (docs/rules.md §10): going there, bail, the jail roll and release."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from opolyx.engine import actions, fortuna, kernel, moving
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import Creditor

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: The Jail / just visiting corner.
JAIL_SQUARE: Final = 10


def send_to_jail(game: GameState, seat: int, reason: str) -> None:
    """Straight to square 10: no move, no salary, and any owed extra roll is cancelled."""
    p = game.players[seat]
    p.position = JAIL_SQUARE
    p.in_jail = True
    p.jail_tries = 0
    game.roll_again = False
    game.pending_move = None
    game.emit("jailed", seat=seat, reason=reason)


def release(game: GameState, seat: int, reason: str) -> None:
    p = game.players[seat]
    p.in_jail = False
    p.jail_tries = 0
    game.emit("released", seat=seat, reason=reason)


def jail_roll(game: GameState, seat: int) -> None:
    """Try for doubles (never Speed's third die): doubles move by the total with no extra roll; a third
    failure charges the bail through the pay step and then moves by this roll."""
    p = game.players[seat]
    rolled = kernel.dice(game, 2)
    game.last_dice = rolled
    d1, d2 = rolled
    game.last_total = d1 + d2
    if (reported := game.reported) is None or "dice_rolled" in reported:
        game.emit("dice_rolled", seat=seat, dice=list(rolled), doubles=d1 == d2, third=None, jail=True)
    game.phase = "resolving"
    game.roll_again = False
    fortuna.lucky_eight(game, seat, d1 + d2)
    if d1 == d2:
        release(game, seat, "doubles")
        moving.move_by(game, seat, d1 + d2)
        kernel.land(game)
        return
    p.jail_tries += 1
    game.emit("jail_roll_failed", seat=seat, tries=p.jail_tries)
    if p.jail_tries >= game.rules.jail_tries:
        kernel.add_debt(game, seat, [Creditor(None, game.rules.jail_bail)], "bail")
        game.pending_move = d1 + d2


def options(game: GameState, seat: int) -> list[Action]:
    """In jail before a roll: bail (when affordable) or a jail roll."""
    if game.players[seat].cash >= game.rules.jail_bail:
        return [{"type": "pay_bail"}, {"type": "jail_roll"}]
    return [{"type": "jail_roll"}]


def on_pay_bail(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "turn")
    p = game.players[seat]
    if not p.in_jail:
        raise IllegalAction("not_in_jail", "you are not in jail")
    if p.cash < game.rules.jail_bail:
        raise IllegalAction("insufficient_cash", "not enough cash for the bail")
    kernel.pay_bank(game, seat, game.rules.jail_bail)
    p.in_jail = False
    p.jail_tries = 0
    game.emit("bail_paid", seat=seat, amount=game.rules.jail_bail)


def on_jail_roll(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "turn")
    if not game.players[seat].in_jail:
        raise IllegalAction("not_in_jail", "you are not in jail")
    jail_roll(game, seat)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"pay_bail": on_pay_bail, "jail_roll": on_jail_roll}
