"""Replays of finished games, made cheap to serve.

A finished game never changes, so a replay is computed once per (game, page, detail) and kept, as the
JSON bytes sent, in a small LRU cache bounded in bytes. Computing one (replaying the game, and with
``snapshots`` taking a public snapshot after every step) runs in a worker thread, at most a few at a
time, so anonymous replay requests cannot stall the event loop that runs every room's clocks. Pages
(``start``/``limit``) bound how much one answer holds; the endpoint is rate-limited per address.
"""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from opolyx import fairness
from opolyx.jsontypes import JSON
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.rules import house
from opolyx.server.engine_api import EngineApi
from opolyx.storage import FINISHED, ActionRecord, RoomRecord, Store, UserRecord

# Snapshots are large (tens of kB each): pages that carry them hold at most this many steps.
MAX_SNAPSHOT_PAGE = 500


def may_replay(room: RoomRecord, viewer: UserRecord | None, code: str | None) -> bool:
    """Who may see a finished game (its replay, its summary): anyone for a public game; for a private one
    the people who sat in it, its creator, or whoever has its code."""
    if room.public:
        return True
    if viewer is not None and (room.seat_of(viewer.id) is not None or viewer.id == room.creator_id):
        return True
    return bool(code and room.code and secrets.compare_digest(code.strip().upper().encode(), room.code.encode()))


async def viewable_game(store: Store, game_id: str, viewer: UserRecord | None, code: str | None) -> RoomRecord:
    """The finished game ``viewer`` may see (:func:`may_replay`); one it may not see is "not found", as
    one that does not exist."""
    room = await store.get_room(game_id)
    if room is None or room.seed is None or not may_replay(room, viewer, code):
        raise ApiError(404, E.GAME_NOT_FOUND, f"no game {game_id}")
    if room.status != FINISHED:
        raise ApiError(409, E.GAME_NOT_FINISHED, "served once the game is over")
    return room


class ReplayCache:
    def __init__(self, engine: Callable[[], EngineApi], *, max_bytes: int = 64 * 2**20, workers: int = 2) -> None:
        self.engine = engine
        self.max_bytes = max_bytes
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._bytes = 0
        self._work = asyncio.Semaphore(workers)
        self.computed = 0  # replays actually computed (not served from the cache); for tests and figures

    def get(self, key: tuple[Any, ...]) -> bytes | None:
        body = self._cache.get(key)
        if body is not None:
            self._cache.move_to_end(key)
        return body

    def put(self, key: tuple[Any, ...], body: bytes) -> None:
        if len(body) > self.max_bytes // 4:
            return  # one huge page must not flush everything else
        self._cache[key] = body
        self._bytes += len(body)
        while self._bytes > self.max_bytes and self._cache:
            _, old = self._cache.popitem(last=False)
            self._bytes -= len(old)

    async def cached(self, key: tuple[Any, ...], compute: Callable[[], bytes]) -> bytes:
        """``compute()``'s answer for ``key`` (something of a finished game, which never changes): from the
        cache, or computed once in a worker thread, at most a few at a time."""
        body = self.get(key)
        if body is not None:
            return body
        async with self._work:
            body = self.get(key)
            if body is None:
                body = await asyncio.to_thread(compute)
                self.computed += 1
                self.put(key, body)
        return body

    async def render(
        self,
        room: RoomRecord,
        records: list[ActionRecord],
        *,
        nonce: str,
        snapshots: bool,
        events: bool,
        start: int,
        limit: int | None,
    ) -> bytes:
        # The seat names are part of the key: a deleted account's name must not be served from the cache.
        key = (room.id, tuple(s.name for s in room.seats), snapshots, events, start, limit)
        page = functools.partial(build, self.engine(), room, records, nonce, snapshots, events, start, limit)
        return await self.cached(key, page)


def build(
    engine: EngineApi,
    room: RoomRecord,
    records: list[ActionRecord],
    nonce: str,
    snapshots: bool,
    events: bool,
    start: int,
    limit: int | None,
) -> bytes:
    """(Worker thread.) The replay page as JSON bytes."""
    assert room.seed is not None
    end = len(records) if limit is None else min(len(records), start + limit)
    page = records[start:end]
    out: JSON = {
        "id": room.id,
        "mode": room.mode,
        "players": [s.name for s in room.seats],
        "seat_info": room.seat_info,
        "house_rules": room.house_rules,
        "status": room.status,
        "result": room.result,
        "total_actions": len(records),
        "start": start,
        "fairness": fairness.revealed_event(room.seed, nonce),
        "actions": [],
        "snapshots": None,
        "start_events": None,
    }
    actions: list[JSON] = [{"seq": r.seq, "seat": r.seat, "action": r.action} for r in page]
    if snapshots or events:
        game = engine.new_game(
            room.mode, len(room.seats), room.seed, seat_info=room.seat_info, **house.engine_options(room.house_rules)
        )
        if events and start == 0:
            out["start_events"] = game.start_events
        states: list[JSON] = [game.snapshot()] if start == 0 else []
        for i, r in enumerate(records[:end]):
            happened = game.apply(r.seat, r.action)
            if i < start:
                continue
            if events:
                actions[i - start]["events"] = happened
            if snapshots:
                states.append(game.snapshot())
        if snapshots:
            out["snapshots"] = states
    out["actions"] = actions
    return json.dumps(out, separators=(",", ":"), default=str).encode()
