"""The turn flow (docs/rules.md §§1, 4 and 12), the top of the rules: rolling, doubles, resolving the square
landed on, passing the turn on, playing a missed turn, and carrying the game forward until someone must
decide (``advance``, which ``Game`` runs after every accepted action).

It is the one rule module that imports the others: a rule that moves a token hands the square reached back
here (``kernel.land``) instead of resolving it itself, so no rule module imports this one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import (
    actions,
    auctions,
    cards,
    ending,
    fortuna,
    jackpot,
    jail,
    kernel,
    managing,
    mortgages,
    moving,
    murabaha,
    paying,
    speed,
    teams,
)
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.rent import card_bonus_percent, rent_due
from opolyx.engine.state import Creditor, Event
from opolyx.rules import COMPANY_KINDS

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

def start_turn(game: GameState, seat: int) -> None:
    """Step 1 of a turn: reset the turn's counters, then the start-of-turn rules (gods, Speed mortgages,
    Murabaha deadlines)."""
    game.turn = seat
    game.turn_no += 1
    game.doubles = 0
    game.roll_again = False
    game.pending_move = None
    game.bus_dice = None
    game.built.clear()
    game.phase = "turn"
    game.emit("turn_started", seat=seat, round=game.round)
    if game.players[seat].god is not None:
        fortuna.dismiss_god(game, seat)
    if game.mortgage_left:
        mortgages.tick(game, seat)
    if game.murabaha:
        murabaha.fall_due(game, seat)


def end_turn(game: GameState) -> None:
    """Pass the turn to the next player still in, starting a new round (or ending the game) after the last."""
    game.autoplay = False
    game.built.clear()
    game.roll_again = False
    game.pending_move = None
    order = game.order
    idx = order.index(game.turn)
    for step in range(1, len(order) + 1):
        j = (idx + step) % len(order)
        if not game.players[order[j]].out:
            break
    else:  # pragma: no cover - the game ends before everyone is out
        return
    if j <= idx:
        if game.round >= game.rules.round_limit:
            ending.finish(game, "round_limit")
            return
        game.round += 1
        game.emit("round_started", round=game.round)
    start_turn(game, order[j])


def advance(game: GameState) -> None:
    """Carry the game forward until it waits for someone's decision or ends."""
    while game.result is None:
        if game.debts:
            debt = game.debts[0]
            if game.players[debt.debtor].out:
                game.debts.pop(0)
                continue
            if game.phase != "pay":
                game.phase_before_pay = game.phase
                game.phase = "pay"
                if (reported := game.reported) is None or "pay_step_started" in reported:
                    game.emit_data("pay_step_started", debt.to_public())
            if game.autoplay and debt.debtor == game.turn:
                paying.auto_settle(game, debt)
                continue
            return
        if game.phase == "pay":
            game.phase = game.phase_before_pay
        p = game.players[game.turn]
        phase = game.phase
        if phase == "auction":
            return
        if p.out:
            end_turn(game)
            continue
        if phase in kernel.TURN_CLOCK_PHASES:
            if game.autoplay:
                auto_decide(game)
                continue
            return
        if phase == "landed":  # a rule moved the token: resolve the square it reached
            resolve(game, game.turn)
            continue
        # phase == "resolving": the roll is done, see what is owed next
        if game.pending_move is not None:
            steps, game.pending_move = game.pending_move, None
            moving.move_by(game, game.turn, steps)
            resolve(game, game.turn)
            continue
        if game.roll_again and not p.in_jail:
            game.roll_again = False
            game.phase = "turn"
            if (reported := game.reported) is None or "roll_again" in reported:
                game.emit("roll_again", seat=game.turn)
            continue
        end_turn(game)


def roll_and_move(game: GameState, seat: int) -> None:
    """Steps 3–5 of a turn: roll (Speed: maybe the third die), count doubles, move and resolve."""
    rules = game.rules
    third = rules.third_die_from_round is not None and game.round >= rules.third_die_from_round
    rolled = kernel.dice(game, 3 if third else 2)
    game.last_dice = rolled
    d1, d2 = rolled[0], rolled[1]
    face: int | str | None = speed.THIRD_DIE_FACES[rolled[2] - 1] if third else None
    # Only faces 1–3 are numbers: compiled, ``face in (1, 2, 3)`` would be three generic comparisons.
    triple = isinstance(face, int) and d1 == d2 == face
    doubles = d1 == d2 and not triple
    if (reported := game.reported) is None or "dice_rolled" in reported:
        game.emit("dice_rolled", seat=seat, dice=list(rolled), doubles=doubles, triple=triple, third=face)
    game.phase = "resolving"
    game.roll_again = False
    if d1 + d2 == 8:
        fortuna.lucky_eight(game, seat, 8)
    if triple:
        assert isinstance(face, int)
        game.last_total = d1 + d2 + face
        game.roll_again = True
        game.phase = "teleport"
        game.emit("triples_rolled", seat=seat)
        return
    if doubles:
        game.doubles += 1
        if game.doubles >= rules.max_doubles:
            game.emit("third_doubles", seat=seat)
            jail.send_to_jail(game, seat, "third_doubles")
            return
        game.roll_again = True
    total = d1 + d2 + (face if isinstance(face, int) else 0)
    game.last_total = total
    # A letter face is a ``str`` here: compiled, each test below is then a native string comparison, where
    # ``face == "bus"`` on the ``int | str | None`` would be a generic one on every roll.
    letter = face if isinstance(face, str) else ""
    if letter == "bus":
        game.bus_dice = (d1, d2)
        game.phase = "bus"
        return
    moving.move_by(game, seat, total)
    if letter == "x" and speed.x_jump(game, seat):
        return
    resolve(game, seat)


def resolve(game: GameState, seat: int) -> None:
    """Resolve the square the player stands on (docs/rules.md §4, step 4)."""
    sq = game.board.squares[game.players[seat].position]
    i = sq.index
    game.phase = "resolving"
    kind = sq.kind
    if kind in COMPANY_KINDS:  # ``Square.is_company`` without a property call on every landing
        owner = game.owner[i]
        if owner is None:
            game.offer_square = i
            game.phase = "buy"
            if (reported := game.reported) is None or "purchase_offered" in reported:
                game.emit("purchase_offered", seat=seat, square=i, price=sq.price)
        elif owner == seat:
            return
        elif teams.allies(game, owner, seat):
            game.emit("rent_waived", seat=seat, owner=owner, square=i, reason="ally")
        elif game.mortgaged[i]:
            game.emit("rent_waived", seat=seat, owner=owner, square=i, reason="mortgaged")
        else:
            amount, tax = rent_due(game, i, seat)
            if (reported := game.reported) is None or "rent_due" in reported:
                # The owner's collectible card bonus (already in ``amount``), shown only where one applies
                # (docs/rules.md §19).
                bonus = card_bonus_percent(game.players[owner].cards, i)
                due: Event = {"seat": seat, "owner": owner, "square": i, "amount": amount, "tax": tax}
                if bonus:
                    due["card_bonus"] = bonus
                game.emit_data("rent_due", due)
            kernel.add_debt(game, seat, [Creditor(owner, amount, tax)], "rent", i)
    elif kind == "tax":
        kernel.add_debt(game, seat, [Creditor(None, sq.tax)], "tax", i)
    elif kind == "event":
        cards.draw_card(game, seat)
    elif kind == "go_to_jail":
        jail.send_to_jail(game, seat, "go_to_jail")
    elif kind == "corner_20":
        corner = game.rules.corner_20
        if corner == "jackpot":
            jackpot.offer(game, seat)
        elif corner == "temple_of_wealth":
            fortuna.grant_god(game, seat, "wealth")
        else:
            game.emit("rested", seat=seat)


def turn_options(game: GameState, seat: int) -> list[Action]:
    """Before a roll: roll (in jail: bail or a jail roll), plus managing."""
    acts = jail.options(game, seat) if game.players[seat].in_jail else [{"type": "roll"}]
    acts.extend(managing.management_actions(game, seat, pay_step=False))
    return acts


def auto_decide(game: GameState) -> None:
    """The safe default for the on-turn player's pending decision when their turn clock ran out (docs/rules.md
    section 12): roll (in jail: a jail roll, never bail), decline a purchase or the jackpot, take both Bus
    dice, skip the teleport."""
    seat = game.turn
    p = game.players[seat]
    phase = game.phase
    if phase == "turn":
        if p.in_jail:
            jail.jail_roll(game, seat)
        else:
            roll_and_move(game, seat)
    elif phase == "buy":
        auctions.decline(game, seat, auto=True)
    elif phase == "jackpot":
        jackpot.decline(game, seat, auto=True)
    elif phase == "bus":
        speed.choose_bus(game, seat, "sum")
    elif phase == "teleport":
        speed.skip_teleport(game, seat)


def on_roll(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "turn")
    if game.players[seat].in_jail:
        raise IllegalAction("in_jail", "in jail: pay the bail or roll for doubles")
    roll_and_move(game, seat)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"roll": on_roll}
