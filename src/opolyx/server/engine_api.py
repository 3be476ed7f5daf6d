"""What the server needs from the rules engine, as a protocol.

The server talks to the engine only through this surface, so it holds no game rules itself (who is on
turn, what is legal, when the game ends: all of it is asked of the engine) and tests can substitute a
tiny stand-in engine to exercise clocks and hubs in isolation.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol, cast

JSON = dict[str, Any]


class GameLike(Protocol):
    @property
    def is_over(self) -> bool: ...

    def legal_actions(self, seat: int) -> list[JSON]: ...

    def apply(self, seat: int | None, action: JSON) -> list[JSON]: ...

    def snapshot(self) -> JSON: ...

    def to_save(self) -> JSON: ...


class EngineApi(Protocol):
    IllegalAction: type[Exception]

    def new_game(
        self, mode: str, seats: int, seed: int, *, seat_info: list[JSON] | None = None
    ) -> GameLike: ...

    def replay(
        self,
        seed: int,
        mode: str,
        seats: int,
        actions: Sequence[Sequence[Any]],
        *,
        seat_info: list[JSON] | None = None,
    ) -> GameLike: ...


def load_engine() -> EngineApi:
    """Import the real engine lazily, so the server imports (and its lobby runs) without it."""
    top = importlib.import_module("opolyx")
    if hasattr(top, "new_game"):
        return cast(EngineApi, top)
    return cast(EngineApi, importlib.import_module("opolyx.engine"))


def illegal_code(exc: BaseException) -> str:
    return str(getattr(exc, "code", "illegal"))
