"""The game server: lobby over HTTP, games over one WebSocket per room, everything stored first."""

from opolyx.server.app import create_app
from opolyx.server.settings import Settings

__all__ = ["Settings", "create_app"]
