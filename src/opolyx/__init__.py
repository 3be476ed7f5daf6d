"""opolyx: a free online Monopoly-style board game.

The public engine API lives here: :func:`new_game`, :func:`replay`, :class:`Game` and
:class:`IllegalAction`. See docs/engine.md.
"""

from opolyx.engine import Game, IllegalAction, new_game, replay
from opolyx.i18n.amounts import format_amount

__all__ = ["Game", "IllegalAction", "format_amount", "new_game", "replay"]
__version__ = "0.1.0"
