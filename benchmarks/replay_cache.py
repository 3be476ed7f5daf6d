"""Replays after the fix: what the first (computed, in a worker thread) and later (cached) requests of a
whole game's replay with snapshots cost, and how long a ping in another room waits meanwhile.

    python benchmarks/replay_cache.py            # own server on a temporary SQLite file

A room whose creator resigns at once is played to the end by bots (bots_replace_leavers); then four
clients fetch its replay with snapshots at once while a fifth pings over a socket in another room.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fuzz_socket import own_server


async def finished_game(http: httpx.AsyncClient) -> str:
    r = await http.post("/api/session", json={"nickname": "Host", "token": True})
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    http.cookies.clear()
    room = (await http.post("/api/rooms", json={"mode": "classic", "seats": 4, "bots_replace_leavers": True},
                            headers=headers)).json()
    for _ in range(3):
        await http.post(f"/api/rooms/{room['id']}/bots", json={"strength": "easy"}, headers=headers)
    await http.post(f"/api/rooms/{room['id']}/start", headers=headers)
    await http.post(f"/api/rooms/{room['id']}/leave", headers=headers)  # a bot plays on for the host
    while (await http.get(f"/api/rooms/{room['id']}")).json()["status"] != "finished":
        await asyncio.sleep(1)
    return str(room["id"])


async def pinger(base: str, stop: asyncio.Event, worst: list[float]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post("/api/session", json={"nickname": "Pinger", "token": True})
        headers = {"Authorization": f"Bearer {r.json()['token']}"}
        room = (await http.post("/api/rooms", json={"mode": "blitz", "seats": 2}, headers=headers)).json()
    url = base.replace("http", "ws", 1) + room["ws"]
    async with websockets.connect(url, additional_headers=headers, max_size=2**24) as ws:
        await ws.recv()
        while not stop.is_set():
            t0 = time.perf_counter()
            await ws.send('{"type":"ping"}')
            while '"pong"' not in str(await ws.recv()):
                pass
            worst.append(time.perf_counter() - t0)
            await asyncio.sleep(0.02)


async def run(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=300) as http:
        game = await finished_game(http)
        stop, pings = asyncio.Event(), []  # type: ignore[var-annotated]
        task = asyncio.create_task(pinger(base, stop, pings))
        await asyncio.sleep(1)

        async def fetch() -> tuple[float, int]:
            t0 = time.perf_counter()
            r = await http.get(f"/games/{game}/replay?snapshots=true&limit=500")
            return time.perf_counter() - t0, len(r.content)

        first = await asyncio.gather(*(fetch() for _ in range(4)))
        again = await asyncio.gather(*(fetch() for _ in range(4)))
        stop.set()
        await task
    total = (await httpx.AsyncClient(base_url=base).get(f"/games/{game}/replay")).json()["total_actions"]
    print(f"game: {total} actions; a page of up to 500 snapshots is {first[0][1] / 1e6:.1f} MB")
    print(f"4 concurrent first requests:  {max(t for t, _ in first):.2f} s (slowest)")
    print(f"4 concurrent cached requests: {max(t for t, _ in again):.3f} s (slowest)")
    print(f"ping in another room meanwhile: worst {max(pings) * 1000:.0f} ms over {len(pings)} pings")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = own_server(tmp)
        try:
            asyncio.run(run(base))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
