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
from opolyx.bots.strengths import STRENGTHS, make_bot

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

