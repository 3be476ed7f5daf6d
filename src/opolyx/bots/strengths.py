"""The three bot strengths by name, so the reference loop, the simulator, the server and the command line
build a bot from a word without importing every bot class themselves."""

from __future__ import annotations

from opolyx.bots.base import Bot
from opolyx.bots.easy import EasyBot
from opolyx.bots.hard import HardBot
from opolyx.bots.normal import NormalBot

STRENGTHS: tuple[str, ...] = ("easy", "normal", "hard")


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
