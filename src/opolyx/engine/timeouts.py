"""Timers and absence (SPEC.md section 12): what a timeout does, the automatic play of a missed turn, and
resigning. The engine has no clock: timeouts are actions the server sends, so games stay replayable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from opolyx.engine import auctions, jackpot, jail, paying, speed, trades, turns
from opolyx.engine.actions import Action, Handler
from opolyx.engine.errors import IllegalAction

if TYPE_CHECKING:
    from opolyx.engine.state import GameState


def auto_decide(game: GameState) -> None:
    """The safe default for the on-turn player's pending decision (SPEC.md section 12)."""
    seat = game.turn
    p = game.players[seat]
    phase = game.phase
    if phase == "turn":
        if p.in_jail:
            jail.jail_roll(game, seat)
        else:
            turns.roll_and_move(game, seat)
    elif phase == "buy":
        auctions.decline(game, seat, auto=True)
    elif phase == "jackpot":
        jackpot.decline(game, seat, auto=True)
    elif phase == "bus":
        speed.choose_bus(game, seat, "sum")
    elif phase == "teleport":
        speed.skip_teleport(game, seat)


def on_resign(game: GameState, seat: int | None, action: Action) -> None:
    """A player may resign at any time; it is handled like a bankruptcy to the bank."""
    assert seat is not None
    paying.eliminate(game, seat, "resigned")
    turns.advance(game)


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
        game._emit("auction_passed", seat=actor, auto=True, reason="timeout")
        auctions.auction_continue(game)
        return
    if game.phase == "pay":
        debt = game.debts[0]
        game._emit("pay_step_timed_out", seat=actor)
        paying.auto_settle(game, debt)
        turns.advance(game)
        return
    p = game.players[actor]
    p.missed_turns += 1
    game._emit("turn_timed_out", seat=actor, missed=p.missed_turns)
    if p.missed_turns >= game.rules.missed_turns_forfeit:
        paying.eliminate(game, actor, "forfeit")
    else:
        game.autoplay = True
    turns.advance(game)


#: The actions this module carries out, by type (``Game._HANDLERS`` joins every module's table).
HANDLERS: dict[str, Handler] = {"resign": on_resign, "timeout": on_timeout}
