"""The kernel beneath every rule: money to and from the bank, queued debts, the dice and the seat order.

Rule modules change a game only through ``GameState`` (``state.py``: its fields, ``emit``/``emit_data`` to
report a change, ``new_id`` for clock ids) and these functions. Nothing here imports a rule module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from opolyx.engine.state import Creditor, Debt, Event

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: Phases in which the player on turn owes a decision under the turn clock (docs/rules.md §12).
TURN_CLOCK_PHASES: Final = frozenset({"turn", "buy", "jackpot", "bus", "teleport"})


def bank_pays(game: GameState, seat: int, amount: int, reason: str, card: str | None = None) -> None:
    """Money the bank creates: salary, card wins (``card`` names the card), jackpot payouts (never through
    the pay step)."""
    if amount <= 0:
        return
    game.players[seat].cash += amount
    game.bank_paid += amount
    if (reported := game.reported) is None or "cash_received" in reported:
        paid: Event = {"seat": seat, "amount": amount, "reason": reason}
        if card is not None:
            paid["card"] = card
        game.emit_data("cash_received", paid)


def pay_bank(game: GameState, seat: int, amount: int) -> None:
    """A payment the player chose and can afford (buying, building, bail, ...): no pay step needed."""
    game.players[seat].cash -= amount
    game.bank_received += amount


def add_debt(game: GameState, debtor: int, creditors: list[Creditor], reason: str, square: int | None = None) -> None:
    """Owed money never silently deducts: queue a pay step (the turn flow, ``turns.advance``, opens it)."""
    owed: list[Creditor] = []
    for c in creditors:  # a loop: a comprehension is a function call of its own on every rent and tax
        if c.amount > 0:
            owed.append(c)
    if not owed:
        return
    game.debts.append(Debt(debtor, owed, reason, square, game.new_id()))


def land(game: GameState) -> None:
    """The player on turn now stands on the square to resolve: a rule that moved them (a card, a jail roll,
    Speed's die) hands the landing to the turn flow, which resolves it next (``turns.advance``)."""
    game.phase = "landed"


def dice(game: GameState, count: int) -> tuple[int, ...]:
    """Roll ``count`` dice: the next fixed roll if any (topped up from the generator), else the generator."""
    if game.fixed_dice:
        fixed = game.fixed_dice.popleft()
        values = list(fixed[:count])
        while len(values) < count:
            values.append(game.rng.randint(1, 6))
        return tuple(values)
    rng = game.rng
    rnd = game.draw
    if rnd is None or game.draw_of is not rng:
        rnd = game.draw = rng.random
        game.draw_of = rng
    if count == 2:  # the common case, without a generator (draws in the same order)
        return (int(rnd() * 6) + 1, int(rnd() * 6) + 1)
    # A plain loop: a generator or comprehension reading ``rnd`` would cost every roll, of two dice or three, a
    # cell for it.
    values = []
    for _ in range(count):
        values.append(int(rnd() * 6) + 1)
    return tuple(values)


def seat_order_from(game: GameState, seat: int) -> list[int]:
    """Every seat in seat order, starting with ``seat`` (docs/rules.md §1)."""
    order = game.order
    idx = order.index(seat)
    return order[idx:] + order[:idx]
