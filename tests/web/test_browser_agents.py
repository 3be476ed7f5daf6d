"""A person sees which seat an AI agent plays: in the lobby, in the room and at the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from webkit import create_room, page_for, shot, sign_in, start_game

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def agent_key(base: str, nickname: str) -> str:
    """A guest who makes a personal API key, as an AI agent's owner does."""
    with httpx.Client(base_url=base, timeout=30) as http:
        token = http.post("/api/session", json={"nickname": nickname, "token": True}).json()["token"]
        made = http.post("/api/keys", json={"label": "agent"}, headers={"Authorization": f"Bearer {token}"})
        made.raise_for_status()
        key: str = made.json()["key"]
        return key


def test_an_agents_seat_is_marked(browser: Any, server: Any, screenshots: Path) -> None:
    key = agent_key(server.base, "Robo")
    with page_for(browser, server.base, viewport={"width": 1280, "height": 860}) as page:
        page.goto("/")
        sign_in(page, "Alice")
        create_room(page, "blitz", 2)
        [room] = httpx.get(server.base + "/api/rooms").json()["waiting"]
        joined = httpx.post(
            server.base + f"/api/rooms/{room['id']}/join", headers={"Authorization": f"Bearer {key}"}, timeout=30
        )
        assert joined.status_code == 200, joined.text
        badge = page.locator(".room-screen [data-agent]")
        badge.wait_for(timeout=30_000)
        assert badge.count() == 1 and badge.inner_text().strip() == "AI agent"
        shot(page, screenshots, "a1-room-with-agent")
        start_game(page)
        panel = page.locator("[data-testid=players] [data-agent]")
        panel.wait_for(timeout=30_000)
        assert panel.count() == 1
        assert "Robo" in page.locator("[data-testid=players] .player:has([data-agent]) .pname").inner_text()
