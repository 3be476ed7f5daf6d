"""Browser tests: Debian's Chromium driven by Playwright against a real opolyx server.

Chromium is installed with apt when missing and the tests run as root; otherwise they are skipped with a
message. The server runs in a thread (uvicorn on a free port, SQLite in a tmp dir, bots at instant pace).
A test may ask for fixed dice, a fixed deck or changed rules: the server's engine seam
(``create_app(settings, engine=...)``) then hands the engine those options, everything else is real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from live_server import ThreadServer, quick_settings
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


def start_server(data_dir: Path, engine_options: dict[str, Any] | None) -> ThreadServer:
    """A running server; ``engine_options`` (fixed dice, deck, rules, seat tweaks) rig its engine."""
    settings = quick_settings(data_dir, secret_key="browser-test-secret")
    engine = (lambda: RiggedEngine(**engine_options)) if engine_options else None
    return ThreadServer(settings, engine).__enter__()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., ThreadServer]]:
    stack: list[ThreadServer] = []

    def start(**engine_options: Any) -> ThreadServer:
        data = tmp_path / f"server{len(stack)}"
        data.mkdir()
        server = start_server(data, engine_options or None)
        stack.append(server)
        return server

    yield start
    for server in reversed(stack):
        server.__exit__(None, None, None)


@pytest.fixture
def server(make_server: Callable[..., ThreadServer]) -> ThreadServer:
    return make_server()


