"""A real opolyx server for tests: uvicorn on a free port in a background thread.

Shared by the server suite (tests/server/server_kit.py) and the browser suite (tests/web/conftest.py), so
both start, wait for and stop a server the same way.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn

from opolyx.server import Settings, create_app
from opolyx.server.engine_api import EngineApi
from opolyx.server.http.transport import uvicorn_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def quick_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test server on a free port: instant bots and rate limits no test run reaches."""
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": free_port(),
        "data_dir": data_dir,
        "bot_delay_min": 0.0,
        "bot_delay_max": 0.0,
        "secret_key": "test-secret",
        "rate_join_burst": 1000,
        "rate_create_burst": 1000,
        "rate_session_burst": 1000,
        "rate_chat_burst": 1000,
        "rate_ws_burst": 100000,
        "rate_ws_per_second": 100000.0,
        "rate_sync_burst": 100000,
        "rate_replay_burst": 1000,
        "rate_code_burst": 1000,
        "max_sockets_per_user": 1000,
        "max_sockets_per_address": 100000,
        "max_waiting_rooms_per_address": 100000,
    }
    values.update(overrides)
    return Settings(**values)


class ThreadServer:
    """uvicorn on ``settings.port`` in a background thread, sharing nothing with other tests.

    ``engine`` replaces the real rules engine (``create_app``'s seam), e.g. with fixed dice.
    """

    def __init__(self, settings: Settings, engine: Callable[[], EngineApi] | None = None) -> None:
        self.settings = settings
        self.base = f"http://127.0.0.1:{settings.port}"
        config = uvicorn_config(create_app(settings, engine=engine), settings, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
