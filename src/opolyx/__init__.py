"""opolyx: a free online Monopoly-style board game.

The public engine API lives here: :func:`new_game`, :func:`replay`, :class:`Game` and
:class:`IllegalAction`. See docs/engine.md.
"""

from importlib.metadata import PackageNotFoundError, version

from opolyx.engine import Game, IllegalAction, new_game, replay
from opolyx.i18n.amounts import format_amount

__all__ = ["Game", "IllegalAction", "format_amount", "new_game", "replay"]

# The one version is pyproject.toml's; the server's OpenAPI page and the MCP connector report this.
# A source tree that was never installed has no metadata to read and says so.
try:
    __version__ = version("opolyx")
except PackageNotFoundError:
    __version__ = "0+unknown"
