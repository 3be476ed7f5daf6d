"""opolyx: a free online Monopoly-style board game.

The public engine API lives here: :func:`new_game`, :func:`replay`, :class:`Game` and
:class:`IllegalAction`. See docs/engine.md.
"""

from opolyx.engine import Game, IllegalAction, new_game, replay
from opolyx.i18n.amounts import format_amount

__all__ = ["Game", "IllegalAction", "format_amount", "new_game", "replay"]


def __getattr__(name: str) -> str:
    """``opolyx.__version__``: the one version, pyproject.toml's, read from the installed package.

    Looked up when first asked for (the server's OpenAPI page, the MCP connector), not on import:
    ``importlib.metadata`` alone takes about 0.1 s to load. A source tree that was never installed has
    no metadata to read and says so.
    """
    if name != "__version__":
        raise AttributeError(f"module 'opolyx' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("opolyx")
    except PackageNotFoundError:
        found = "0+unknown"
    globals()["__version__"] = found
    return found
