"""A turn (SPEC.md sections 1 and 4): dice, doubles, moving, the Start salary, resolving the square landed
on, passing the turn on, and carrying the game forward until someone must decide."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from opolyx.engine import (
    actions,
    cards,
    ending,
    fortuna,
    jackpot,
    jail,
    managing,
    mortgages,
    murabaha,
    paying,
    speed,
    teams,
    timeouts,
)
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.rent import card_bonus_percent, rent_due
from opolyx.engine.state import Creditor, Event
from opolyx.rules import COMPANY_KINDS

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: Phases in which the player on turn owes a decision under the turn clock (SPEC.md section 12).
TURN_CLOCK_PHASES: Final = frozenset({"turn", "buy", "jackpot", "bus", "teleport"})


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
    game._emit("turn_started", seat=seat, round=game.round)
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
        game._emit("round_started", round=game.round)
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
                    game._emit_data("pay_step_started", debt.to_public())
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
        if phase in TURN_CLOCK_PHASES:
            if game.autoplay:
                timeouts.auto_decide(game)
                continue
            return
        # phase == "resolving": the roll is done, see what is owed next
        if game.pending_move is not None:
            steps, game.pending_move = game.pending_move, None
            move_by(game, game.turn, steps)
            resolve(game, game.turn)
            continue
        if game.roll_again and not p.in_jail:
            game.roll_again = False
            game.phase = "turn"
            if (reported := game.reported) is None or "roll_again" in reported:
                game._emit("roll_again", seat=game.turn)
            continue
        end_turn(game)


def roll_and_move(game: GameState, seat: int) -> None:
    """Steps 3–5 of a turn: roll (Speed: maybe the third die), count doubles, move and resolve."""
    rules = game.rules
    third = rules.third_die_from_round is not None and game.round >= rules.third_die_from_round
    rolled = dice(game, 3 if third else 2)
    game.last_dice = rolled
    d1, d2 = rolled[0], rolled[1]
    face: int | str | None = speed.THIRD_DIE_FACES[rolled[2] - 1] if third else None
    # Only faces 1–3 are numbers: compiled, ``face in (1, 2, 3)`` would be three generic comparisons.
    triple = isinstance(face, int) and d1 == d2 == face
    doubles = d1 == d2 and not triple
    if (reported := game.reported) is None or "dice_rolled" in reported:
        game._emit("dice_rolled", seat=seat, dice=list(rolled), doubles=doubles, triple=triple, third=face)
    game.phase = "resolving"
    game.roll_again = False
    if d1 + d2 == 8:
        fortuna.lucky_eight(game, seat, 8)
    if triple:
        assert isinstance(face, int)
        game.last_total = d1 + d2 + face
        game.roll_again = True
        game.phase = "teleport"
        game._emit("triples_rolled", seat=seat)
        return
    if doubles:
        game.doubles += 1
        if game.doubles >= rules.max_doubles:
            game._emit("third_doubles", seat=seat)
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
    move_by(game, seat, total)
    if letter == "x" and speed.x_jump(game, seat):
        return
    resolve(game, seat)


def move_by(game: GameState, seat: int, steps: int) -> None:
    """Move ``steps`` squares (negative: back); passing Start pays the salary, landing on it the bonus too."""
    p = game.players[seat]
    n = len(game.board.squares)
    start = p.position
    dest = (start + steps) % n
    p.position = dest
    game._emit_data("moved", {"seat": seat, "to": dest, "steps": steps, "from": start})
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
    paying.bank_pays(game, seat, amount, "start_landing" if landed else "salary")


def resolve(game: GameState, seat: int) -> None:
    """Resolve the square the player stands on (SPEC.md section 4, step 4)."""
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
                game._emit("purchase_offered", seat=seat, square=i, price=sq.price)
        elif owner == seat:
            return
        elif teams.allies(game, owner, seat):
            game._emit("rent_waived", seat=seat, owner=owner, square=i, reason="ally")
        elif game.mortgaged[i]:
            game._emit("rent_waived", seat=seat, owner=owner, square=i, reason="mortgaged")
        else:
            amount, tax = rent_due(game, i, seat)
            if (reported := game.reported) is None or "rent_due" in reported:
                # The owner's collectible card bonus (already in ``amount``), shown only where one applies
                # (SPEC.md 19).
                bonus = card_bonus_percent(game.players[owner].cards, i)
                due: Event = {"seat": seat, "owner": owner, "square": i, "amount": amount, "tax": tax}
                if bonus:
                    due["card_bonus"] = bonus
                game._emit_data("rent_due", due)
            paying.add_debt(game, seat, [Creditor(owner, amount, tax)], "rent", i)
    elif kind == "tax":
        paying.add_debt(game, seat, [Creditor(None, sq.tax)], "tax", i)
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
            game._emit("rested", seat=seat)


def seat_order_from(game: GameState, seat: int) -> list[int]:
    """Every seat in seat order, starting with ``seat`` (SPEC.md section 1)."""
    order = game.order
    idx = order.index(seat)
    return order[idx:] + order[:idx]


def turn_options(game: GameState, seat: int) -> list[Action]:
    """Before a roll: roll (in jail: bail or a jail roll), plus managing."""
    acts = jail.options(game, seat) if game.players[seat].in_jail else [{"type": "roll"}]
    acts.extend(managing.management_actions(game, seat, pay_step=False))
    return acts


def on_roll(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "turn")
    if game.players[seat].in_jail:
        raise IllegalAction("in_jail", "in jail: pay the bail or roll for doubles")
    roll_and_move(game, seat)
    advance(game)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"roll": on_roll}
