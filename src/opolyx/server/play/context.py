"""What every room hub of a process shares: settings, store, engine, metrics and the server's secret."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from opolyx import fairness
from opolyx.server.engine_api import EngineApi
from opolyx.server.http.metrics import ServerMetrics
from opolyx.server.settings import Settings
from opolyx.storage import Store


@dataclass
class HubContext:
    settings: Settings
    store: Store
    engine: Callable[[], EngineApi]
    metrics: ServerMetrics = field(default_factory=ServerMetrics)
    # The server's secret: the fair-dice nonce of each game is derived from it (opolyx.fairness).
    secret: str = ""

    def seed_nonce(self, room_id: str) -> str:
        return fairness.derive_nonce(self.secret, room_id)
