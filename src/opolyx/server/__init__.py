"""The game server: lobby over HTTP, games over one WebSocket per room, everything stored first.

``create_app`` and ``Settings`` are loaded when first asked for, not with the package: the ``opolyx`` command
imports the server's command line (``opolyx.server.cli``) for every subcommand, and the web stack behind the
app takes about a second to import, which ``opolyx simulate`` has no use for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opolyx.server.http.app import create_app
    from opolyx.server.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from opolyx.server.http.app import create_app

        return create_app
    if name == "Settings":
        from opolyx.server.settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
