"""Event squares and the deck (docs/rules.md §15): drawing a card and carrying out its effect."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import fortuna, jail, kernel, moving
from opolyx.engine.state import Creditor

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def draw_card(game: GameState, seat: int) -> None:
    """Draw the top card (it goes to the bottom), name it to the table and carry out its effect.

    Halal renames three cards and Fortuna swaps three effects for gods and the red envelope (rule data).
    """
    card_id = game.deck.pop(0)
    game.deck.append(card_id)
    card = game.cards[card_id]
    rules = game.rules
    name = rules.card_names.get(card_id, card_id)
    if (reported := game.reported) is None or "card_drawn" in reported:
        game.emit("card_drawn", seat=seat, card=name, effect=card_id)
    effect = card.effect
    others = [s for s in kernel.seat_order_from(game, seat) if s != seat and not game.players[s].out]
    if effect == "move_to":
        assert card.square is not None
        moving.move_to(game, seat, card.square)
        kernel.land(game)
    elif effect == "move_to_nearest":
        pos = game.players[seat].position
        n = len(game.board.squares)
        kinds = game.board.dealerships if card.kind == "dealership" else game.board.utilities
        target = min(kinds, key=lambda i: (i - pos) % n or n)
        moving.move_to(game, seat, target)
        kernel.land(game)
    elif effect == "move_by":
        moving.move_by(game, seat, card.steps)
        kernel.land(game)
    elif effect == "go_to_jail":
        jail.send_to_jail(game, seat, "card")
    elif effect == "collect":
        if rules.gods and card_id == "performance_bonus":
            fortuna.grant_god(game, seat, "wealth")
        else:
            kernel.bank_pays(game, seat, card.amount, "card", card=name)
    elif effect == "collect_from_each":
        for other in others:
            kernel.add_debt(game, other, [Creditor(seat, card.amount)], "card", None)
    elif effect == "pay_each":
        if rules.red_envelope and others:
            shares = fortuna.red_envelope(game, card.amount * len(others), len(others))
            game.emit("red_envelope", seat=seat, shares=dict(zip([str(o) for o in others], shares,
                                                                     strict=True)))
            kernel.add_debt(game, seat, [Creditor(o, s) for o, s in zip(others, shares, strict=True)], "card")
        else:
            kernel.add_debt(game, seat, [Creditor(o, card.amount) for o in others], "card")
    elif effect == "pay":
        if rules.gods and card_id == "tax_audit":
            fortuna.grant_god(game, seat, "misfortune")
        else:
            kernel.add_debt(game, seat, [Creditor(None, card.amount)], "card")
    elif effect == "pay_per_level":
        levels = sum(game.level[i] for i in game.board.companies if game.owner[i] == seat)
        kernel.add_debt(game, seat, [Creditor(None, card.amount * levels)], "card")
