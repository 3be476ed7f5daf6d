"""The Jackpot corner (docs/rules.md §14): the offer, the bet and declining.

Halal's rest area and Fortuna's Temple of Wealth take the corner's place by rule data (``corner_20``).
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from opolyx.engine import actions, kernel
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: Every bet: one, two or three different numbers from 1 to 6.
JACKPOT_CHOICES: tuple[tuple[int, ...], ...] = tuple(
    c for n in (1, 2, 3) for c in combinations(range(1, 7), n)
)


def offer(game: GameState, seat: int) -> None:
    """Landing on the corner: with less cash than the stake there is nothing to play."""
    stake = game.rules.jackpot_stake
    if game.players[seat].cash >= stake:
        game.phase = "jackpot"
        game.emit("jackpot_offered", seat=seat, stake=stake)
    else:
        game.emit("jackpot_unaffordable", seat=seat, stake=stake)


def options(game: GameState, seat: int) -> list[Action]:
    acts: list[Action] = []
    if game.players[seat].cash >= game.rules.jackpot_stake:
        acts.extend({"type": "jackpot_bet", "numbers": list(c)} for c in JACKPOT_CHOICES)
    acts.append({"type": "jackpot_decline"})
    return acts


def on_jackpot_bet(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "jackpot")
    numbers = action.get("numbers")
    if (
        not isinstance(numbers, list)
        or not 1 <= len(numbers) <= 3
        or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in numbers)
        or len(set(numbers)) != len(numbers)
    ):
        raise IllegalAction("bad_numbers", "choose one, two or three different numbers from 1 to 6")
    stake = game.rules.jackpot_stake
    if game.players[seat].cash < stake:
        raise IllegalAction("insufficient_cash", "not enough cash for the stake")
    kernel.pay_bank(game, seat, stake)
    die = kernel.dice(game, 1)[0]
    won = die in numbers
    payout = stake * game.rules.jackpot_multipliers[len(numbers) - 1] if won else 0
    game.emit("jackpot_played", seat=seat, numbers=sorted(numbers), die=die, won=won, stake=stake,
              payout=payout)
    if won:
        kernel.bank_pays(game, seat, payout, "jackpot")
    game.phase = "resolving"


def decline(game: GameState, seat: int, *, auto: bool) -> None:
    """Declining costs nothing; it is also the default when the turn clock runs out."""
    game.emit("jackpot_declined", seat=seat, auto=auto)
    game.phase = "resolving"


def on_jackpot_decline(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "jackpot")
    decline(game, seat, auto=False)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"jackpot_bet": on_jackpot_bet, "jackpot_decline": on_jackpot_decline}
