"""The one contract of quick play's queue stores: in memory (one process) and in Redis (a cluster's one
queue). Leaving is instant, a table claims its tickets all or none and never a ticket that changed or
left since it was read, one process at a time forms tables, and placements are read back anywhere."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from opolyx.server.play.quickplay_queue import Ticket
from opolyx.server.play.quickplay_store import PENDING, MemoryQueue, QueueStore, RedisQueue
from opolyx.storage.testing import REDIS_ENV

pytestmark = pytest.mark.anyio
REDIS_URL = os.environ.get(REDIS_ENV) or None


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "redis"])
async def queues(request: pytest.FixtureRequest) -> AsyncIterator[tuple[QueueStore, QueueStore]]:
    """Two handles on one queue: the same object in memory, two processes' connections in Redis."""
    if request.param == "memory":
        q = MemoryQueue()
        yield q, q
        return
    if REDIS_URL is None:
        pytest.skip(f"Redis variant skipped: set {REDIS_ENV}=redis://127.0.0.1:6379/0 to run it")
    from redis.asyncio import Redis

    prefix = f"test:quickplay:{secrets.token_hex(6)}:"
    a, b = Redis.from_url(REDIS_URL), Redis.from_url(REDIS_URL)
    try:
        yield RedisQueue(a, prefix), RedisQueue(b, prefix)
    finally:
        keys = [k async for k in a.scan_iter(match=prefix + "*")]
        if keys:
            await a.delete(*keys)
        await a.aclose()
        await b.aclose()


def _t(user: str, at: float = 0.0, **kw: object) -> Ticket:
    return Ticket(user, "classic", (4,), "normal", at, **kw)  # type: ignore[arg-type]


async def test_tickets_are_shared_and_leaving_is_instant(queues: tuple[QueueStore, QueueStore]) -> None:
    one, two = queues
    await one.put(_t("a", 1.5, rating=3.25, name="Ann"))
    await one.put(_t("b", 2.0))
    assert await two.get("a") == _t("a", 1.5, rating=3.25, name="Ann")
    assert sorted(t.user for t in await two.tickets()) == ["a", "b"]
    assert await two.remove("a") is True
    assert await one.get("a") is None and await one.remove("a") is False


async def test_a_claim_takes_all_or_nothing_and_never_a_changed_ticket(queues: tuple[QueueStore, QueueStore]) -> None:
    one, two = queues
    a, b = _t("a"), _t("b", 1.0)
    await one.put(a)
    await one.put(b)
    read = await one.tickets()
    # Meanwhile, on the other process: b leaves and comes back with other wishes.
    await two.put(replace(b, seats=(2,)))
    assert await one.claim(read) is False
    assert sorted(t.user for t in await two.tickets()) == ["a", "b"]  # nothing was taken
    await two.remove("b")
    assert await one.claim([a, b]) is False
    assert await one.claim([a]) is True
    assert await two.tickets() == []
    # Claimed: the person's room is being opened, which any process can tell.
    assert await two.placed("a") == PENDING and await two.placed("b") is None


async def test_one_process_forms_tables_at_a_time(queues: tuple[QueueStore, QueueStore]) -> None:
    one, two = queues
    async with one.turn() as mine:
        assert mine
        async with two.turn() as theirs:
            assert not theirs
    async with two.turn() as theirs:
        assert theirs


async def test_placements_are_read_anywhere_and_a_new_ticket_forgets_them(
    queues: tuple[QueueStore, QueueStore],
) -> None:
    one, two = queues
    await one.place(["a", "b"], "room1")
    assert await two.placed("a") == "room1" and await two.placed("c") is None
    await two.put(_t("a"))
    assert await one.placed("a") is None
    await one.forget_placed("b")
    assert await two.placed("b") is None


async def test_concurrent_claims_of_one_ticket_seat_it_once(queues: tuple[QueueStore, QueueStore]) -> None:
    one, two = queues
    await one.put(_t("a"))
    [ticket] = await one.tickets()
    won = await asyncio.gather(*(q.claim([ticket]) for q in (one, two, one, two)))
    assert sorted(won) == [False, False, False, True]
