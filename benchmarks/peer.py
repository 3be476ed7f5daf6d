"""opolyx against the fastest open-source Python Monopoly simulator, measured in the same run on one core.

The peer (gamescomputersplay/monopoly, simpler rules: no auctions, no pay step, no trades by offer) is not
part of this repository: give a checkout of it by path. Its game log is switched off and its bankruptcy
log goes to a temporary directory, so the checkout is left as it was. A player-turn is one turn of one player:
one ``turn_started`` event here, and there one call of ``Player.make_a_move`` from the peer's game loop, not
counting the calls it makes of itself for a roll after a double, which are the same turn (``PeerGames``).
Before issue #11's twentieth session those were counted too, 1.19 calls a turn, so the peer's figure per
player-turn was 0.84 of its real one and every ratio against it 1.19 times too high. opolyx's games are
those of ``opolyx simulate`` (its game loop in one process, with its event counters).

    git clone <a copy of gamescomputersplay/monopoly> /tmp/peer-monopoly
    .venv/bin/python benchmarks/peer.py --peer /tmp/peer-monopoly [--games 200] [--repeat 3]

The simulator sets the garbage collector up for its games (``quiet_collector``: what is loaded frozen out
of collections, young collections every 10,000 allocations); the peer is timed as it ships and, for a
like-for-like ratio, once more with the same collector setup.

With ``--instructions`` it counts instead (valgrind's callgrind, ``instructions.py``): instructions per
player-turn on each side, the imports left out, and their ratio, which other load on a shared machine does
not move. With ``--bytecodes`` it counts the Python bytecodes each side runs per player-turn (``sys.settrace`` opcode
events, in this process; a compiled opolyx runs its engine and bots as C, so only the rest is counted). In the
session that added it the pure-Python time ratio fell between the two counts' ratios (per turn 2.64,
instructions 1.92, bytecodes 3.15): opolyx's bytecodes are cheaper on average than the peer's, which spends more of its
time inside C calls, so it runs more of them per instruction, and each costs the interpreter's dispatch a
hard-to-predict jump. Neither count alone tells whether a change is faster: loops handed to C (``map``,
``compress``, ``list.count``) ran 7.6 % fewer bytecodes and took 4 % longer (``versions.py`` times two
trees side by side).

Prints µs per player-turn for both (CPU time, best of ``--repeat`` rounds, each round running the peer as it
ships, the peer with the collector setup and opolyx in turn), the ratio, the median and range of each
round's own ratio (steadier when the machine's speed drifts between rounds), the engine alone (the same
games' actions replayed with no bot deciding, the floor under opolyx's figure, timed against the peer in
rounds of their own after the others), and opolyx's random legal play through the public API
(``legal_actions`` + ``apply``) and through the fast path (``legal_codes`` + ``apply_code``) in actions per
second. Whether opolyx runs compiled is printed too (``scripts/compile`` builds it, ``scripts/compile
--clean`` removes it).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

import opolyx
from opolyx.engine import codes
from opolyx.engine.compiled import build_name, is_compiled
from opolyx.sim.runner import SimConfig, iter_records, play_one, quiet_collection
from opolyx.sim.stats import COUNTED


def collector_as_simulate(run: Callable[[], int]) -> Callable[[], int]:
    """``run`` with the garbage collector set up as ``opolyx simulate`` sets it, then put back."""

    def wrapped() -> int:
        with quiet_collection():
            return run()

    return wrapped


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    """The lowest CPU time of ``repeat`` runs (a shared machine only ever slows one down), and the count."""
    times, count = interleaved(repeat, {"run": run})["run"]
    return min(times), count


def interleaved(repeat: int, runs: dict[str, Callable[[], int]]) -> dict[str, tuple[list[float], int]]:
    """Each run's CPU time in each of ``repeat`` rounds, and its count. Each round runs every one once, in
    turn, so that a slow spell of a shared machine falls on all of them rather than on one; the order turns
    by one each round, so that no run always comes after the same one (what it left in the caches and the
    allocator)."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    counts = dict.fromkeys(runs, 0)
    names = list(runs)
    for k in range(repeat):
        for name in names[k % len(names):] + names[:k % len(names)]:
            run = runs[name]
            start = time.process_time()
            counts[name] = run()
            times[name].append(time.process_time() - start)
    return {name: (times[name], counts[name]) for name in runs}


def paired(ours: list[float], theirs: list[float]) -> str:
    """The median and range of the rounds' own ratios: each round's runs follow each other within seconds, so
    a drift of the machine's speed between rounds, which the best times of each side can straddle, cancels."""
    ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    return f"median {statistics.median(ratios):.2f} ({ratios[0]:.2f}–{ratios[-1]:.2f})"


class PeerGames:
    """``games`` of the peer's games, the same every time (each is seeded by its number): called, it plays them
    and returns their player-turns.

    A player-turn is one turn of one player, as one ``turn_started`` event is here. The peer plays a turn as
    one call of ``Player.make_a_move`` from its game loop, which calls itself again for each roll after a
    double: those calls are the same turn (about one in six turns has one), so only the outermost call is
    counted. The counting wraps ``make_a_move`` in a first run of its own (:meth:`count`); the runs after are
    the peer's code alone, so the counter's time is never the peer's.
    """

    def __init__(self, games: int) -> None:
        from monopoly.core import game as peer_game  # type: ignore[import-not-found]
        from monopoly.core.player import Player  # type: ignore[import-not-found]

        self.games = games
        self.monopoly_game = peer_game.monopoly_game
        self.player = Player
        self.turns: int | None = None

    def play(self) -> None:
        seeds = random.Random(0)
        for i in range(self.games):
            self.monopoly_game((i + 1, seeds.getrandbits(32)))

    def count(self) -> int:
        """Play the games once with a turn counter on ``make_a_move``, and return (and keep) their turns."""
        turns = 0
        inside = False
        make_a_move = self.player.make_a_move

        def counted(player: Any, *args: Any) -> Any:
            nonlocal turns, inside
            if inside:
                return make_a_move(player, *args)  # a roll after a double: the same turn
            turns += 1
            inside = True
            try:
                return make_a_move(player, *args)
            finally:
                inside = False

        self.player.make_a_move = counted
        try:
            self.play()
        finally:
            self.player.make_a_move = make_a_move
        self.turns = turns
        return turns

    def __call__(self) -> int:
        if self.turns is None:
            return self.count()
        self.play()
        return self.turns


@contextmanager
def peer_games(path: Path, games: int) -> Iterator[PeerGames]:
    """:class:`PeerGames` from the checkout at ``path``, its game log off and its bankruptcy log in a temporary
    directory; the checkout leaves the import path again afterwards."""
    sys.path.insert(0, str(path))
    from monopoly.log_settings import LogSettings  # type: ignore[import-not-found]

    LogSettings.KEEP_GAME_LOG = False
    LogSettings.BANKRUPTCIES_PATH = Path(tempfile.mkdtemp(prefix="peer-monopoly-")) / "bankruptcies.tsv"
    try:
        yield PeerGames(games)
    finally:
        sys.path.remove(str(path))


def opolyx_games(games: int) -> Callable[[], int]:
    """``opolyx simulate --mode classic --seats 4 --bots normal --games N --workers 1`` without the summary:
    the simulator's own game loop (``iter_records``: seeds, bots, its per-event counters, its collector
    setup), counting player-turns as it does."""
    config = SimConfig(mode="classic", seats=4, bots=("normal",) * 4, games=games, seed=1)

    def run() -> int:
        return sum(record["turns"] for record in iter_records(config))

    return run


def engine_alone(games: int) -> Callable[[], int]:
    """The rules alone: the actions of the games :func:`opolyx_games` plays, recorded once, replayed through
    ``Game.apply`` as the simulator has the engine run (the events its counters read, no log of actions),
    with no bot deciding. What the same player-turns cost before any bot has thought about them."""
    config = SimConfig(mode="classic", seats=4, bots=("normal",) * 4, games=games, seed=1)
    played = []
    turns = 0
    for index in range(games):
        game, collector = play_one(config, index, keep_actions=True)
        played.append([game.seed, game.setup["seat_info"], game.actions])
        turns += collector.turns
    # Built again in one go from their text, close together in memory as a bot's fresh action is: kept as they
    # were made, scattered among the freed objects of 200 games, they replayed a third slower compiled.
    records = orjson.loads(orjson.dumps(played))
    del played, game
    gc.collect()

    def run() -> int:
        for seed, info, actions in records:
            game = opolyx.new_game("classic", 4, seed, seat_info=info)
            game.reported, game.keeps_actions = COUNTED, False
            apply = game.apply
            for seat, action in actions:
                apply(seat, action)
        return turns

    return run


def random_play(games: int, repeat: int, fast: bool) -> tuple[float, int]:
    """Whole 4-seat Classic games of uniformly random listed actions (trade templates and resigning left
    out), so the figure is ``legal_actions`` plus ``apply`` (or their coded forms) per action."""
    resign = codes.KINDS.index("resign")

    def run() -> int:
        actions = 0
        for seed in range(games):
            rng = random.Random(seed)
            g = opolyx.new_game("classic", 4, seed)
            while not g.is_over:
                seat = g.actor()
                assert seat is not None
                if fast:
                    legal_codes = [c for c in g.legal_codes(seat) if c & 31 != resign]
                    g.apply_code(seat, rng.choice(legal_codes))
                else:
                    legal = [a for a in g.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
                    g.apply(seat, rng.choice(legal))
                actions += 1
        return actions

    return best_of(repeat, run)


def count_instructions(peer: Path, games: int) -> None:
    """Instructions per player-turn of both sides' games, and their ratio (see the module's docstring)."""
    from instructions import counted  # beside this script, which Python puts on the path

    with peer_games(peer, games) as run_peer:
        peer_n = run_peer()
    ours_n = opolyx_games(games)()
    per_turn = {}
    for side, turns in (("peer", peer_n), ("opolyx", ours_n)):
        base, run = (counted([__file__, "--peer", str(peer), "--count-child", side, str(n)]) for n in (0, games))
        per_turn[side] = (run - base) / turns
    print(f"opolyx build: {build_name()}; instructions per player-turn (callgrind), imports left out")
    print(f"peer    {games} games, 4 players: {per_turn['peer']:9,.0f}")
    print(f"opolyx  {games} games, 4 normal bots, classic: {per_turn['opolyx']:9,.0f}")
    print(f"ratio   opolyx / peer: {per_turn['opolyx'] / per_turn['peer']:.2f} (below 1: opolyx does less)")


def bytecodes_of(run: Callable[[], int]) -> tuple[int, int]:
    """The Python bytecodes ``run()`` executes and the player-turns it returns (``sys.settrace`` with opcode
    events: each frame asks for them as it starts, so code entered before the trace began is not counted)."""
    executed = 0

    def each(frame: Any, event: str, arg: Any) -> Any:
        nonlocal executed
        if event == "opcode":
            executed += 1
        return each

    def start(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return each

    sys.settrace(start)
    try:
        turns = run()
    finally:
        sys.settrace(None)
    return executed, turns


def count_bytecodes(peer: Path, games: int) -> None:
    """Bytecodes per player-turn of both sides' games, and their ratio (see the module's docstring)."""
    with peer_games(peer, games) as run_peer:
        run_peer.count()  # first, so that the counter's bytecodes are not the peer's
        peer_ops, peer_n = bytecodes_of(run_peer)
    ours_ops, ours_n = bytecodes_of(opolyx_games(games))
    print(f"opolyx build: {build_name()}; Python bytecodes per player-turn (sys.settrace), imports left out")
    if is_compiled():
        print("        (a compiled opolyx runs its engine and bots as C: only the rest is counted)")
    print(f"peer    {games} games, 4 players: {peer_ops / peer_n:9,.0f}")
    print(f"opolyx  {games} games, 4 normal bots, classic: {ours_ops / ours_n:9,.0f}")
    print(f"ratio   opolyx / peer: {ours_ops / ours_n / (peer_ops / peer_n):.2f} (below 1: opolyx runs fewer)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer", type=Path, required=True, help="a checkout of gamescomputersplay/monopoly")
    parser.add_argument("--games", type=int, default=200, help="whole games per side")
    parser.add_argument("--random-games", type=int, default=20, help="games of random legal play")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="count instructions instead (valgrind)")
    parser.add_argument("--bytecodes", action="store_true", help="count Python bytecodes instead (sys.settrace)")
    parser.add_argument("--count-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    peer = args.peer.resolve()
    if args.count_child:
        side, games = args.count_child[0], int(args.count_child[1])
        if side == "peer":
            with peer_games(peer, games) as run_peer:
                run_peer.play()  # uncounted: the parent counted the turns
        else:
            opolyx_games(games)()
        return
    if args.instructions:
        count_instructions(peer, args.games)
        return
    if args.bytecodes:
        count_bytecodes(peer, args.games)
        return
    with peer_games(peer, args.games) as run_peer:
        run_peer.count()  # untimed: the timed runs are the peer's code alone
        timed = interleaved(args.repeat, {
            "peer": run_peer,
            "quiet": collector_as_simulate(run_peer),
            "opolyx": opolyx_games(args.games),
        })
        # The rules alone, in rounds of their own beside the peer with the same collector setup: the recorded
        # games they replay, alive in this process, slowed the runs above (opolyx's compiled one by 10-30 %).
        floor = interleaved(args.repeat, {
            "quiet": collector_as_simulate(run_peer),
            "engine": collector_as_simulate(engine_alone(args.games)),
        })
    (peer_t, peer_n), (quiet_t, _), (ours_t, ours_n) = timed["peer"], timed["quiet"], timed["opolyx"]
    (engine_t, engine_n), (floor_quiet_t, _) = floor["engine"], floor["quiet"]
    peer_s, quiet_s, ours_s = min(peer_t), min(quiet_t), min(ours_t)
    print(f"opolyx build: {build_name()}; CPU time, best of {args.repeat}")
    peer_us, quiet_us, ours_us = peer_s / peer_n * 1e6, quiet_s / peer_n * 1e6, ours_s / ours_n * 1e6
    print(f"peer    {args.games} games, 4 players: {peer_n / args.games:7.1f} player-turns/game, "
          f"{peer_us:6.2f} µs per player-turn as it ships, {quiet_us:6.2f} with opolyx's collector setup")
    print(f"opolyx  {args.games} games, 4 normal bots, classic: {ours_n / args.games:7.1f} player-turns/game, "
          f"{ours_us:6.2f} µs per player-turn")
    engine_us, floor_quiet_us = min(engine_t) / engine_n * 1e6, min(floor_quiet_t) / peer_n * 1e6
    print(f"opolyx  the same games' actions replayed, no bot deciding (the engine alone): {engine_us:6.2f} µs per "
          f"player-turn, {engine_us / ours_us:.0%} of opolyx's; in rounds of their own, "
          f"{engine_us / floor_quiet_us:.2f} of the peer's whole one with the same collector setup "
          f"({floor_quiet_us:.2f} µs)")
    print(f"ratio   opolyx / peer µs per player-turn: {ours_us / peer_us:.2f} against the peer as it ships, "
          f"{ours_us / quiet_us:.2f} with the same collector setup (below 1: opolyx is faster)")
    # Per player-turn: both sides play the same games every round, so the ratio of times scales by the counts.
    scale = peer_n / ours_n
    ours_scaled = [t * scale for t in ours_t]
    print(f"paired  each round's own ratio, over {args.repeat} rounds: {paired(ours_scaled, peer_t)} against the "
          f"peer as it ships, {paired(ours_scaled, quiet_t)} with the same collector setup")
    for label, fast in (("legal_actions + apply", False), ("legal_codes + apply_code", True)):
        secs, n = random_play(args.random_games, args.repeat, fast)
        print(f"opolyx  random legal play, {label}: {n / secs:9.0f} actions/s")


if __name__ == "__main__":
    main()
