"""The quick-play routes' own checks, called directly (issue 46): a server that offers no quick play says
so with a 404 rather than failing, and the rating board lists 50 rows unless asked for another number."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from opolyx.protocol.errors import ApiError
from opolyx.server.play.quickplay_routes import _quick, rating_board


def test_a_server_without_quick_play_answers_not_found() -> None:
    with pytest.raises(ApiError) as refused:
        _quick(SimpleNamespace(quickplay=None))  # type: ignore[arg-type]
    assert refused.value.status == 404 and refused.value.code == "not_found"
    offered = object()
    assert _quick(SimpleNamespace(quickplay=offered)) is offered  # type: ignore[arg-type]


def test_the_rating_board_asks_for_fifty_rows_by_default() -> None:
    asked: dict[str, Any] = {}

    async def rating_leaderboard(mode: str, pool: str, **kw: Any) -> tuple[list[Any], None]:
        asked.update(kw, mode=mode, pool=pool)
        return [], None

    svc = SimpleNamespace(store=SimpleNamespace(rating_leaderboard=rating_leaderboard))
    out = asyncio.run(rating_board(svc, None))  # type: ignore[arg-type]
    assert asked["limit"] == 50 and asked["viewer"] is None and asked["mode"] == "classic"
    assert out.rows == [] and out.you is None
