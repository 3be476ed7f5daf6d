"""What permessage-deflate costs per room-socket frame, by compression level and window size.

Every room socket compresses every frame in its own deflate context (context takeover), so the cost is
paid once per receiving socket. This replays ``events`` frames of whole bot games through one compressor
per setting, as one socket would see them, and prints CPU time and bytes per frame, and the compressor's
memory per socket (zlib's formula). Each setting is measured on both forms of the frame: with the whole
game state after each action (``game``, what a plain socket gets) and with only the members that changed
(``game_changes``, what a socket opened with ``?game=changes`` gets, as the browser client's are).

    python benchmarks/deflate.py --games 4 --mode classic --seats 4
"""

from __future__ import annotations

import argparse
import time
import zlib
from typing import Any

from opolyx.bots.loop import play_game
from opolyx.engine import Game
from opolyx.server.play.fanout import game_changes
from opolyx.server.wire import dumps


def frames_of(mode: str, seats: int, games: int) -> dict[str, list[bytes]]:
    """The events frames of ``games`` bot games, in both forms."""
    out: dict[str, list[bytes]] = {"game": [], "game_changes": []}
    seen: dict[str, Any] = {}

    def on_events(game: Game, events: list[Any]) -> None:
        nonlocal seen
        snap = game.snapshot()
        head = {"type": "events", "events": events, "pending": snap["pending"]}
        out["game"].append(dumps({**head, "game": snap}).encode())
        changes = game_changes(seen, snap) if seen else None
        form = {"game": snap} if changes is None else {"game_changes": changes}
        out["game_changes"].append(dumps({**head, **form}).encode())
        seen = snap

    for seed in range(games):
        seen = {}
        play_game(mode, seats, seed, ["normal"] * seats, on_events=on_events)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--mem-level", type=int, default=5)
    args = parser.parse_args()
    forms = frames_of(args.mode, args.seats, args.games)
    raw = {form: sum(map(len, frames)) / len(frames) for form, frames in forms.items()}
    for form, frames in forms.items():
        print(f"{len(frames)} events frames with {form} of {args.games} {args.mode} games, {raw[form]:.0f} bytes each "
              f"on average (largest {max(map(len, frames))})")
    print("level  window  frames with   µs/frame  bytes/frame  of raw  memory/socket")
    for level in (1, 3, 6):
        for bits in (12, 13, 14, 15):
            memory = (1 << (bits + 2)) + (1 << (args.mem_level + 9))
            for form, frames in forms.items():
                comp = zlib.compressobj(level, zlib.DEFLATED, -bits, args.mem_level)
                size = 0
                start = time.process_time()
                for frame in frames:
                    size += len(comp.compress(frame)) + len(comp.flush(zlib.Z_SYNC_FLUSH))
                spent = time.process_time() - start
                per_frame = size / len(frames)
                print(f"{level:5d}  {1 << bits >> 10:3d} KiB  {form:12s}  {1e6 * spent / len(frames):9.1f}  "
                      f"{per_frame:11.0f}  {100 * per_frame / raw[form]:5.1f} %  {memory >> 10:6d} KiB")


if __name__ == "__main__":
    main()
