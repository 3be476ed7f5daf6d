"""The engine's share of a bot game: the same games played by four ``normal`` bots, then replayed from their
recorded actions through ``Game.apply`` alone, on one core.

``benchmarks/peer.py`` times whole bot games, where the engine and the bots' judgement are mixed. Replaying
the recorded actions carries out exactly the same rules work (same seeds, same actions, same events) with no
bot deciding, so it isolates the engine; the difference is what the bots cost, their reads of the game
included. Prints µs per player-turn (a ``turn_started`` event, as in ``peer.py``), CPU time, best of
``--repeat``, and whether opolyx runs compiled.

    .venv/bin/python benchmarks/engine_share.py [--games 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from opolyx.bots import derive_seed, play_game
from opolyx.engine.compiled import build_name
from opolyx.engine.game import new_game

#: One recorded game: its seed, its seat info and its ``[seat, action]`` pairs.
Record = tuple[int, list[dict[str, Any]], list[tuple[int | None, dict[str, Any]]]]


def best_of(repeat: int, run: Callable[[], None]) -> float:
    """The lowest CPU time of ``repeat`` runs: a shared machine only ever slows one down."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def bot_games(games: int) -> list[Record]:
    """Play the games ``peer.py`` plays and keep what replaying them needs."""
    records: list[Record] = []
    for k in range(games):
        game = play_game("classic", 4, derive_seed(1, "bench", k), ["normal"] * 4)
        records.append((game.seed, game.setup["seat_info"], [(seat, action) for seat, action in game.actions]))
    return records


def count_turns(records: list[Record]) -> int:
    """Player-turns as ``peer.py`` counts them: ``turn_started`` events, the start events' included."""
    turns = 0
    for seed, info, actions in records:
        game = new_game("classic", 4, seed, seat_info=info)
        turns += sum(1 for e in game.start_events if e["type"] == "turn_started")
        for seat, action in actions:
            turns += sum(1 for e in game.apply(seat, action) if e["type"] == "turn_started")
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"opolyx build: {build_name()}; CPU time, best of {args.repeat}")

    def play() -> None:
        for k in range(args.games):
            play_game("classic", 4, derive_seed(1, "bench", k), ["normal"] * 4)

    records = bot_games(args.games)
    turns = count_turns(records)

    def replay() -> None:
        for seed, info, actions in records:
            game = new_game("classic", 4, seed, seat_info=info)
            apply = game.apply
            for seat, action in actions:
                apply(seat, action)

    whole = best_of(args.repeat, play) / turns * 1e6
    engine = best_of(args.repeat, replay) / turns * 1e6
    print(f"{args.games} games, 4 normal bots, classic: {turns / args.games:.1f} player-turns/game")
    print(f"whole bot game     {whole:6.2f} µs per player-turn")
    print(f"engine (replay)    {engine:6.2f} µs per player-turn ({engine / whole:.0%})")
    print(f"bots (difference)  {whole - engine:6.2f} µs per player-turn ({(whole - engine) / whole:.0%})")


if __name__ == "__main__":
    main()
