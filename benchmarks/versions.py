"""Two versions of opolyx timed side by side: the simulator's player-turn (four ``normal`` bots, Classic, as
``peer.py`` plays them) of two source trees, for instance a worktree of an earlier commit and this one, or a
compiled copy (``scripts/compile_build.py --src DIR``) and its pure sources.

This project's machine is shared and its speed drifts by a fifth from minute to minute, so two versions timed
minutes apart cannot be compared. Here every round runs both, one right after the other, each in a fresh
process that imports from its own tree (the imports are not timed), the order turning each round; the
figure to read is the median of the rounds' own ratios. ``instructions.py`` counts instead, which load does
not move at all.

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/versions.py /tmp/before/src src [--games 100] [--rounds 8]

Prints each tree's CPU time per player-turn (best and median of the rounds) and the second tree's time as a
share of the first's: the median and range of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from peer import paired  # beside this script, which Python puts on the path

#: The measured program: ``opolyx simulate``'s games in one process, timed without the imports.
CHILD = """
import json, sys, time
from opolyx.engine.compiled import build_name
from opolyx.sim.runner import SimConfig, iter_records
config = SimConfig(mode="classic", seats=4, bots=("normal",) * 4, games=int(sys.argv[1]), seed=1)
start = time.process_time()
turns = sum(record["turns"] for record in iter_records(config))
print(json.dumps({"seconds": time.process_time() - start, "turns": turns, "build": build_name()}))
"""


def run(src: Path, games: int) -> tuple[float, int, str]:
    """One timed run of ``games`` games by the opolyx in ``src``: CPU seconds, player-turns, build."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    out = subprocess.run([sys.executable, "-c", CHILD, str(games)], env=env, capture_output=True, text=True,
                         check=True).stdout
    result = json.loads(out)
    return float(result["seconds"]), int(result["turns"]), str(result["build"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path, help="the src/ directory of the version to compare against")
    parser.add_argument("second", type=Path, help="the src/ directory of the version measured")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    trees: list[Path] = [args.first, args.second]
    per_turn: list[list[float]] = [[], []]
    turns = [0, 0]
    builds = ["", ""]
    for k in range(args.rounds):
        for side in ((0, 1) if k % 2 == 0 else (1, 0)):
            seconds, turns[side], builds[side] = run(trees[side], args.games)
            per_turn[side].append(seconds / turns[side] * 1e6)
    if turns[0] != turns[1]:
        print(f"note: the two versions played different games ({turns[0]} and {turns[1]} player-turns)")
    for side in (0, 1):
        times = per_turn[side]
        print(f"{trees[side]!s:40} {builds[side]}: {min(times):6.2f} µs per player-turn at best, "
              f"{statistics.median(times):6.2f} median, over {args.rounds} rounds of {args.games} games")
    print(f"second / first: {paired(per_turn[1], per_turn[0])} of the rounds' own ratios; best against best "
          f"{min(per_turn[1]) / min(per_turn[0]):.2f}")


if __name__ == "__main__":
    main()
