"""Browser test of issue 39's login CSRF: opening a sign-in link someone else asked for never merges this
browser's guest silently; the page says whose account it is and asks."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from webkit import page_for, shots_at_both_sizes, sign_in

from live_server import ThreadServer, quick_settings
from opolyx.storage.testing import BACKENDS, PG_SKIP_MESSAGE, TestDatabase, fresh_database, pg_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from accounts_kit import MailSink, smtp_sink
from server_kit import Person

pytestmark = pytest.mark.browser


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestDatabase]:
    """Made in a worker thread: Playwright's sync API already runs an event loop in this one."""
    if request.param == "postgresql" and pg_url() is None:
        pytest.skip(PG_SKIP_MESSAGE)
    made = fresh_database(request.param, tmp_path)
    with ThreadPoolExecutor(1) as worker:
        db = worker.submit(made.__enter__).result()
        try:
            yield db
        finally:
            worker.submit(made.__exit__, None, None, None).result()


@pytest.fixture
def sink() -> Iterator[MailSink]:
    with smtp_sink() as s:
        yield s


@pytest.fixture
def server(database: TestDatabase, tmp_path: Path, sink: MailSink) -> Iterator[ThreadServer]:
    settings = quick_settings(
        tmp_path / "data",
        database_url=database.url,
        database_schema=database.schema,
        secret_key="browser-signin-secret",
        smtp_host="127.0.0.1",
        smtp_port=sink.port,
        smtp_security="none",
        rate_magic_burst=100,
    )
    with ThreadServer(settings) as s:
        yield s


def _session(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("fetch('/api/session').then((r) => r.json())")
    return found


def test_someone_elses_link_asks_before_it_merges_the_guest(
    browser: Any, server: ThreadServer, sink: MailSink, screenshots: Path
) -> None:
    mallory = Person(server.base, "Mallory")
    try:
        # Mallory has an account, and asks one more link for it to send to her victim.
        for n in (1, 2):
            assert mallory.post("/api/auth/link", {"email": "mallory@evil.example.org"}).status_code == 202
            _, secret = sink.link("mallory@evil.example.org", n)
            if n == 1:
                assert mallory.post("/api/auth/verify", {"token": secret}).status_code == 200
        link, _ = sink.link("mallory@evil.example.org", 2)
        with page_for(browser, server.base) as page:
            sign_in(page, "Victim")
            guest = _session(page)
            page.goto(link)
            page.wait_for_selector("[data-testid=signin-confirm]")
            whose = page.inner_text("[data-testid=signin-whose]")
            assert "m***@evil.example.org" in whose and "Mallory" in whose
            assert "#/signin/" not in page.url, "the secret leaves the address bar"
            shots_at_both_sizes(page, screenshots, "39-signin-confirm")
            # Nothing has moved while the page asks.
            now = _session(page)
            assert (now["id"], now["guest"]) == (guest["id"], True)
            # "Not mine": the victim stays the guest it was, and Mallory's account gained nothing.
            page.click("[data-action=signin-cancel]")
            page.wait_for_selector(".lobby-screen")
            now = _session(page)
            assert (now["id"], now["guest"]) == (guest["id"], True)
            assert page.errors == []  # type: ignore[attr-defined]
        profile = mallory.http.get("/api/profile").json()
        assert profile["user"]["id"] != guest["id"] and profile["recent_games"] == []
    finally:
        mallory.close()
