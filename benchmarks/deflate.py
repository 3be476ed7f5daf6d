"""What permessage-deflate costs per room-socket frame, by compression level and window size.

Every room socket compresses every frame in its own deflate context (context takeover), so the cost is
paid once per receiving socket. This replays ``events`` frames of whole bot games (the game state the
server sends after each action) through one compressor per setting, as one socket would see them, and
prints CPU time and bytes per frame, and the compressor's memory per socket (zlib's formula).

    python benchmarks/deflate.py --games 4 --mode classic --seats 4
"""

from __future__ import annotations

import argparse
import time
import zlib
from typing import Any

from opolyx.bots.loop import play_game
from opolyx.engine import Game
from opolyx.server.wire import dumps


def frames_of(mode: str, seats: int, games: int) -> list[bytes]:
    out: list[bytes] = []

    def on_events(game: Game, events: list[Any]) -> None:
        snap = game.snapshot()
        out.append(dumps({"type": "events", "events": events, "pending": snap["pending"], "game": snap}).encode())

    for seed in range(games):
        play_game(mode, seats, seed, ["normal"] * seats, on_events=on_events)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--mem-level", type=int, default=5)
    args = parser.parse_args()
    frames = frames_of(args.mode, args.seats, args.games)
    raw = sum(map(len, frames)) / len(frames)
    print(f"{len(frames)} events frames of {args.games} {args.mode} games, {raw:.0f} bytes each on average "
          f"(largest {max(map(len, frames))})")
    print("level  window   µs/frame  bytes/frame  of raw  memory/socket")
    for level in (1, 3, 6):
        for bits in (12, 13, 14, 15):
            comp = zlib.compressobj(level, zlib.DEFLATED, -bits, args.mem_level)
            size = 0
            start = time.process_time()
            for frame in frames:
                size += len(comp.compress(frame)) + len(comp.flush(zlib.Z_SYNC_FLUSH))
            spent = time.process_time() - start
            memory = (1 << (bits + 2)) + (1 << (args.mem_level + 9))
            print(f"{level:5d}  {1 << bits >> 10:3d} KiB  {1e6 * spent / len(frames):9.1f}  "
                  f"{size / len(frames):11.0f}  {100 * size / len(frames) / raw:5.1f} %  {memory >> 10:6d} KiB")


if __name__ == "__main__":
    main()
