"""Full garbage collections run on the server's timer, and Python's own schedule is back after a stop."""

from __future__ import annotations

import asyncio
import gc

from opolyx.server.http.collector import FullCollections


def test_full_collections_follow_the_timer_and_python_takes_over_again_after_stop() -> None:
    before = gc.get_threshold()

    async def run() -> int:
        collections = FullCollections(0.02)
        collections.start()
        assert gc.get_threshold()[:2] == before[:2]  # young collections as usual
        assert gc.get_threshold()[2] > 10**6  # Python no longer starts full ones itself
        runs = gc.get_stats()[2]["collections"]
        for _ in range(500):  # two timed passes, however slowly the machine gets to them
            if gc.get_stats()[2]["collections"] - runs >= 2:
                break
            await asyncio.sleep(0.02)
        await collections.stop()
        return gc.get_stats()[2]["collections"] - runs

    assert asyncio.run(run()) >= 2
    assert gc.get_threshold() == before


def test_a_zero_period_leaves_python_in_charge() -> None:
    before = gc.get_threshold()

    async def run() -> None:
        collections = FullCollections(0)
        collections.start()
        assert gc.get_threshold() == before
        await collections.stop()

    asyncio.run(run())
    assert gc.get_threshold() == before
