"""Bots for every mode and the reference game loop used by the simulator and the tests.

``make_bot(strength, seed).choose(game, seat)`` returns one legal action. Strengths: ``easy`` (legal,
impulsive), ``normal`` (sound heuristics), ``hard`` (the normal heuristics plus Monte Carlo look-ahead
on the key decisions within a per-decision time budget).
"""

from __future__ import annotations

from opolyx.bots.base import Bot, NothingToDo
from opolyx.bots.easy import EasyBot
from opolyx.bots.hard import HardBot
from opolyx.bots.loop import BotError, EventSink, check_legal, derive_seed, play_game
from opolyx.bots.normal import NormalBot

STRENGTHS: tuple[str, ...] = ("easy", "normal", "hard")

__all__ = [
    "STRENGTHS",
    "Bot",
    "BotError",
    "EasyBot",
    "EventSink",
    "HardBot",
    "NormalBot",
    "NothingToDo",
    "check_legal",
    "derive_seed",
    "make_bot",
    "play_game",
]


def make_bot(strength: str, seed: int, *, deterministic: bool = False, budget_ms: float | None = None) -> Bot:
    """A bot of ``strength`` drawing all its chance from ``random.Random(seed)``.

    ``deterministic`` (simulations, tests) makes the hard bot spend a fixed number of engine steps per
    decision instead of watching the clock, so results depend only on seeds. ``budget_ms`` overrides the
    hard bot's per-decision time budget.
    """
    if strength == "easy":
        return EasyBot(seed)
    if strength == "normal":
        return NormalBot(seed)
    if strength == "hard":
        return HardBot(seed, deterministic=deterministic, budget_ms=budget_ms)
    raise ValueError(f"unknown bot strength {strength!r}; choose from {', '.join(STRENGTHS)}")
