"""Instructions per player-turn of a four-``normal``-bot Classic game, counted by valgrind (callgrind), and the
engine's share of them: a count that other load on the machine does not move, for comparing two versions.

The games are ``engine_share.py``'s. Four runs under callgrind: the imports alone, the imports and the games, the
imports, the games and three replays of their recorded actions through ``Game.apply``, and the imports and the same
games played as ``opolyx simulate`` plays them (its event counters, the engine building only the events they read
and keeping no log of the actions). The differences give the whole game and the engine's share; the rest is the bots
(their reads of the game included). The first game also pays for loading the rule tables, the same for every
version. Whether opolyx runs compiled is printed (``PYTHONPATH=DIR`` points at a compiled copy, see
``scripts/compile_build.py``).

    .venv/bin/python benchmarks/instructions.py [--games 20]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

REPLAYS = 3


def child(games: int, replays: int, simulated: int) -> None:
    """The measured program: ``games`` bot games (played as the simulator plays them if ``simulated``), then
    ``replays`` replays of them."""
    from engine_share import bot_games  # beside this script, which Python puts on the path

    from opolyx.bots import derive_seed, play_game
    from opolyx.engine.game import new_game
    from opolyx.rules import load_board
    from opolyx.sim.stats import COUNTED, GameCollector

    if simulated:
        board = load_board("classic")
        for k in range(games):
            play_game("classic", 4, derive_seed(1, "bench", k), ["normal"] * 4, on_events=GameCollector(board),
                      event_types=COUNTED, keep_actions=False)
        return
    records = bot_games(games)
    for _ in range(replays):
        for seed, info, actions in records:
            game = new_game("classic", 4, seed, seat_info=info)
            for seat, action in actions:
                game.apply(seat, action)


def counted(args: list[str]) -> int:
    """Instructions a Python run of ``args`` (a script and its arguments) executes, counted by callgrind."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    found = re.search(r"Collected : (\d+)", out)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{out[-2000:]}")
    return int(found.group(1))


def instructions(games: int, replays: int, simulated: int = 0) -> int:
    return counted([__file__, "--child", str(games), str(replays), str(simulated)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is needed (apt-get install valgrind)")
    from engine_share import bot_games, count_turns

    from opolyx.engine.compiled import build_name

    turns = count_turns(bot_games(args.games))
    base, play, replay = (instructions(0, 0), instructions(args.games, 0), instructions(args.games, REPLAYS))
    simulated = (instructions(args.games, 0, 1) - base) / turns
    whole = (play - base) / turns
    engine = (replay - play) / REPLAYS / turns
    print(f"opolyx build: {build_name()}; {args.games} games, 4 normal bots, classic, {turns} player-turns")
    print(f"whole bot game     {whole:9,.0f} instructions per player-turn")
    print(f"engine (replay)    {engine:9,.0f} instructions per player-turn ({engine / whole:.0%})")
    print(f"bots (difference)  {whole - engine:9,.0f} instructions per player-turn ({(whole - engine) / whole:.0%})")
    print(f"as opolyx simulate {simulated:9,.0f} instructions per player-turn (its counters; the engine builds "
          f"only the events they read)")


if __name__ == "__main__":
    main()
