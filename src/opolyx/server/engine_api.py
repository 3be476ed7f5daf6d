"""What the server needs from the rules engine, as a protocol.

The server talks to the engine only through this surface, so it holds no game rules itself (who is on
turn, what is legal, when the game ends: all of it is asked of the engine), and tests can hand
``create_app`` an engine with fixed dice or a fixed deck (``tests/web/rigged_engine.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import opolyx.engine
from opolyx.engine import IllegalAction
from opolyx.jsontypes import JSON


class GameLike(Protocol):
    #: The events of creating the game (``game_started``, ``turn_started``); no ``apply`` returns them.
    start_events: list[JSON]

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self, seat: int) -> list[JSON]: ...

    def apply(self, seat: int | None, action: JSON) -> list[JSON]: ...

    def snapshot(self) -> JSON: ...

    def current_rents(self) -> dict[int, int]: ...

    def to_save(self) -> JSON: ...


class EngineApi(Protocol):
    IllegalAction: type[IllegalAction]

    def new_game(
        self, mode: str, seats: int, seed: int, *, seat_info: list[JSON] | None = None, rules: JSON | None = None
    ) -> GameLike: ...

    def replay(
        self,
        seed: int,
        mode: str,
        seats: int,
        actions: Sequence[Sequence[Any]],
        *,
        seat_info: list[JSON] | None = None,
        rules: JSON | None = None,
    ) -> GameLike: ...


def load_engine() -> EngineApi:
    """The real rules engine, ``opolyx.engine`` (a module that fits ``EngineApi``)."""
    return opolyx.engine
