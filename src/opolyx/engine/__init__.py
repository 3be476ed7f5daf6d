"""The pure rules engine: state, actions, events, errors. No I/O, no clock, no asyncio."""

from opolyx.engine.errors import IllegalAction
from opolyx.engine.game import Game, new_game, replay

__all__ = ["Game", "IllegalAction", "new_game", "replay"]
