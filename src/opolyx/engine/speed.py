"""Speed's third die (docs/rules.md §17): the Bus choice, the X jump and the triple's teleport.

``turns.roll_and_move`` rolls the die and reads its face; this module carries out what the face asks for and
hands the square reached to the turn flow (``kernel.land``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, get_args

from opolyx.engine import actions, kernel, moving, teams
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction
from opolyx.engine.vocabulary import BusUse

if TYPE_CHECKING:
    from opolyx.engine.state import GameState

#: Faces of Speed's third die, indexed by the rolled value 1–6.
THIRD_DIE_FACES: Final[tuple[int | str, ...]] = (1, 2, 3, "bus", "x", "x")

#: The Bus choices: both white dice, or either one of them (in the order rolled; ``vocabulary.BusUse``).
BUS_USES: Final[tuple[str, ...]] = get_args(BusUse)


def x_jump(game: GameState, seat: int) -> bool:
    """Speed's X: jump ahead to the nearest unowned company, else the nearest opponent's."""
    p = game.players[seat]
    n = len(game.board.squares)
    companies = set(game.board.companies)
    target = None
    for want_unowned in (True, False):
        for step in range(1, n):
            i = (p.position + step) % n
            if i not in companies:
                continue
            owner = game.owner[i]
            if want_unowned and owner is None:
                target = i
                break
            if not want_unowned and owner is not None and not teams.allies(game, owner, seat):
                target = i
                break
        if target is not None:
            break
    if target is None:
        return False
    game.emit("x_jump", seat=seat, square=target)
    moving.move_to(game, seat, target)
    kernel.land(game)
    return True


def choose_bus(game: GameState, seat: int, use: str) -> None:
    """Move by the chosen Bus dice and resolve the square."""
    assert game.bus_dice is not None
    d1, d2 = game.bus_dice
    steps = {"sum": d1 + d2, "first": d1, "second": d2}[use]
    game.bus_dice = None
    game.emit("bus_chosen", seat=seat, use=use, steps=steps)
    game.phase = "resolving"
    moving.move_by(game, seat, steps)
    kernel.land(game)


def teleport(game: GameState, seat: int, target: int) -> None:
    """Jump to any square; only landing on Start pays (salary + bonus), passing it does not."""
    p = game.players[seat]
    start = p.position
    p.position = target
    game.emit_data("teleported", {"seat": seat, "to": target, "from": start})
    game.phase = "resolving"
    if target == 0:
        moving.pay_salary(game, seat, landed=True)
    kernel.land(game)


def skip_teleport(game: GameState, seat: int) -> None:
    """Without a choice the triple moves like an ordinary roll (salary included when passing Start)."""
    game.emit("teleport_skipped", seat=seat)
    game.phase = "resolving"
    moving.move_by(game, seat, game.last_total)
    kernel.land(game)


def bus_options(game: GameState, seat: int) -> list[Action]:
    return [{"type": "choose_bus", "use": u} for u in BUS_USES]


def teleport_options(game: GameState, seat: int) -> list[Action]:
    return [{"type": "teleport", "square": i} for i in range(len(game.board.squares))]


def on_choose_bus(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "bus")
    use = action.get("use")
    if use not in BUS_USES:
        raise IllegalAction("bad_choice", "use must be 'sum', 'first' or 'second'")
    choose_bus(game, seat, use)


def on_teleport(game: GameState, seat: int | None, action: Action) -> None:
    seat = actions.expect(game, seat, "teleport")
    target = actions.square_arg(game, action)
    teleport(game, seat, target)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"choose_bus": on_choose_bus, "teleport": on_teleport}
