"""Timers and absence (docs/rules.md §12): what a timeout does and resigning (the automatic play of a
missed turn is the turn flow's, ``turns.auto_decide``). The engine has no clock: timeouts are actions the
server sends, so games stay replayable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import auctions, paying, trades
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def on_resign(game: GameState, seat: int | None, action: Action) -> None:
    """A player may resign at any time; it is handled like a bankruptcy to the bank."""
    assert seat is not None
    paying.eliminate(game, seat, "resigned")


def on_timeout(game: GameState, seat: int | None, action: Action) -> None:
    """The server's clock ran out on a pending decision (or a trade offer); late timeouts are refused by the
    clock id. An auction timeout is a pass, a pay-step timeout the automatic raise; only a turn-clock timeout
    is a missed turn, and two in a row forfeit."""
    if "trade" in action:
        trades.expire(game, action)
        return
    expected = action.get("seat")
    actor = game.actor()
    if expected is not None and expected != actor:
        raise IllegalAction("stale_timeout", f"seat {actor} is deciding now, not {expected}")
    clock = action.get("clock")
    if clock is not None and clock != game.pending()[0]["clock"]["id"]:
        raise IllegalAction("stale_timeout", f"clock {clock!r} is no longer running")
    assert actor is not None
    if game.phase == "auction":
        a = game.auction
        assert a is not None
        a.passed.add(actor)
        game.emit("auction_passed", seat=actor, auto=True, reason="timeout")
        auctions.auction_continue(game)
        return
    if game.phase == "pay":
        debt = game.debts[0]
        game.emit("pay_step_timed_out", seat=actor)
        paying.auto_settle(game, debt)
        return
    p = game.players[actor]
    p.missed_turns += 1
    game.emit("turn_timed_out", seat=actor, missed=p.missed_turns)
    if p.missed_turns >= game.rules.missed_turns_forfeit:
        paying.eliminate(game, actor, "forfeit")
    else:
        game.autoplay = True


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"resign": on_resign, "timeout": on_timeout}
