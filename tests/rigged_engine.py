"""A rigged rules engine for tests: the real opolyx engine with fixed dice, a fixed deck, a fixed first
player, rule overrides and per-seat tweaks (e.g. ``{0: {"vip": True}}``). Shared by the server suite and
the browser suite, which hand it to ``ThreadServer`` (tests/live_server.py) as the server's engine.

The server only calls ``new_game`` and ``replay`` (``opolyx.server.engine_api.EngineApi``); both go through
the same option set and the same seat tweaks, so a game the server rebuilds from its stored actions (a
restart, a crash on an action) is exactly the game it started. Everything else is the real engine.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any


class RiggedEngine:
    def __init__(self, *, seats: Mapping[int, Mapping[str, Any]] | None = None, **options: Any) -> None:
        import opolyx.engine as engine

        self._engine = engine
        self.options = options  # dice=, deck=, first_player=, rules=
        self.seat_tweaks = {int(k): dict(v) for k, v in (seats or {}).items()}
        self.IllegalAction = engine.IllegalAction

    def seat_info(
        self, seat_info: Sequence[Mapping[str, Any] | None] | None, seats: int
    ) -> list[dict[str, Any]] | None:
        """The server's seat_info with this test's tweaks laid over it (a pure function of its input)."""
        if not self.seat_tweaks:
            return None if seat_info is None else [dict(s or {}) for s in seat_info]
        base = [dict(s or {}) for s in (seat_info or [{} for _ in range(seats)])]
        for seat, tweak in self.seat_tweaks.items():
            if 0 <= seat < len(base):
                base[seat].update(copy.deepcopy(tweak))
        return base

    def with_rules(self, rules: Mapping[str, Any] | None) -> dict[str, Any]:
        """The rig's options with a room's house rules laid over its own rule overrides."""
        merged = {**(self.options.get("rules") or {}), **(rules or {})}
        return {**self.options, "rules": merged or None}

    def new_game(self, mode: str, seats: int, seed: int, *, seat_info: Any = None, rules: Any = None) -> Any:
        return self._engine.new_game(
            mode, seats, seed, seat_info=self.seat_info(seat_info, seats), **self.with_rules(rules)
        )

    def replay(
        self, seed: int, mode: str, seats: int, actions: Any, *, seat_info: Any = None, rules: Any = None
    ) -> Any:
        return self._engine.replay(
            seed, mode, seats, actions, seat_info=self.seat_info(seat_info, seats), **self.with_rules(rules)
        )
