"""Browser tests: Debian's Chromium driven by Playwright against a real opolyx server.

Chromium is installed with apt when missing and the tests run as root; otherwise they are skipped with a
message. The server runs in a thread (uvicorn on a free port, SQLite in a tmp dir, bots at instant pace).
A test may ask for fixed dice, a fixed deck or changed rules: the server's engine seam
(``create_app(settings, engine=...)``) then hands the engine those options, everything else is real.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from rigged_engine import RiggedEngine

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def ensure_chromium() -> str | None:
    """The path of Chromium, installing it with apt when missing and allowed; None means skip."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update"], check=False, env=env, capture_output=True, timeout=600)
    subprocess.run(["apt-get", "install", "-y", "chromium"], check=False, env=env, capture_output=True, timeout=1200)
    return CHROMIUM if Path(CHROMIUM).exists() else None


def ensure_cjk_font() -> None:
    """Chinese glyphs for the zh screenshots (best effort: the tests pass without them)."""
    fc = shutil.which("fc-list")
    if fc is None or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return
    if "CJK" in subprocess.run([fc], capture_output=True, text=True, check=False).stdout:
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(
        ["apt-get", "install", "-y", "fonts-noto-cjk"], check=False, env=env, capture_output=True, timeout=1200
    )


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = ensure_chromium()
    if path is None:
        pytest.skip("Chromium is missing at /usr/bin/chromium and cannot be installed (not root): "
                    "run `apt-get install -y chromium` as root to enable the browser tests")
    ensure_cjk_font()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The real engine with fixed dice/deck/first player/rule changes and seat tweaks (tests/web/rigged_engine.py).
FixedEngine = RiggedEngine


class Server:
    def __init__(self, tmp: Path, engine_options: dict[str, Any] | None) -> None:
        import uvicorn

        from opolyx.server import Settings, create_app

        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.settings = Settings(
            host="127.0.0.1",
            port=port,
            data_dir=tmp,
            secret_key="browser-test-secret",
            bot_delay_min=0.0,
            bot_delay_max=0.0,
            rate_join_burst=1000,
            rate_create_burst=1000,
            rate_session_burst=1000,
            rate_chat_burst=1000,
            rate_ws_burst=100000,
            rate_ws_per_second=100000.0,
        )
        engine = (lambda: FixedEngine(**engine_options)) if engine_options else None
        config = uvicorn.Config(
            create_app(self.settings, engine=engine),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
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


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    stack: list[Server] = []

    def start(**engine_options: Any) -> Server:
        n = len(stack)
        data = tmp_path / f"server{n}"
        data.mkdir()
        server = Server(data, engine_options or None).__enter__()
        stack.append(server)
        return server

    yield start
    for server in reversed(stack):
        server.__exit__(None, None, None)


@pytest.fixture
def server(make_server: Callable[..., Server]) -> Server:
    return make_server()


@contextmanager
def page_for(browser: Any, base: str, **context: Any) -> Iterator[Any]:
    ctx = browser.new_context(base_url=base, **context)
    # Generous waits: CI runs the browser beside the server tests on two cores. A wait ends as soon as
    # its condition holds, so this only changes how long a real failure takes to report.
    ctx.set_default_timeout(30_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        ctx.close()
    assert not errors, errors
