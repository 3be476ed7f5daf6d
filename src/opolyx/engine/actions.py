"""The action plumbing every rule shares: the runtime shapes of actions and events, whose decision it is,
reading a square argument. Rule modules carry out actions through handlers, one per action type.

An action arrives as untrusted JSON, so handlers read it as a plain dict (``Action``) and check every field
themselves; ``vocabulary`` declares what each action may hold (its ``TypedDict``s), for the server and
clients. A handler only checks and carries out its own action: ``Game`` then carries the game forward
(``turns.advance``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from opolyx.engine.errors import IllegalAction
from opolyx.engine.state import Event, GameState

__all__ = ["Action", "Event", "Handler", "Options", "expect", "square_arg"]

Action: TypeAlias = dict[str, Any]
#: Carries out one action type for a seat (``None``: the server's clock); raises ``IllegalAction`` before
#: changing anything when the action is not allowed.
Handler: TypeAlias = Callable[[GameState, "int | None", Action], None]
#: Lists the actions a seat may take in one phase, when that seat is the one deciding.
Options: TypeAlias = Callable[[GameState, int], list[Action]]


def expect(game: GameState, seat: int | None, *phases: str) -> int:
    """The seat, if the game is in one of ``phases`` and waiting for exactly this seat."""
    if game.phase not in phases:
        raise IllegalAction("wrong_phase", f"not possible in phase {game.phase!r}")
    actor = game.actor()
    if seat is None or actor is None or seat != actor:
        raise IllegalAction("not_your_turn", f"seat {actor} must act now, not seat {seat}")
    assert seat is not None
    return seat


def square_arg(game: GameState, action: Action) -> int:
    """The action's ``square``, checked to be a square of the board."""
    i = action.get("square")
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(game.board.squares):
        raise IllegalAction("bad_square", f"no square {i!r}")
    return i
