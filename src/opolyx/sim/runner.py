"""Running many bot games, in one process or on every core, with the same figures either way.

Each game's seed is derived from the master seed and the game's index (never from a worker's
position or a shared generator), and results are gathered in index order, so ``--workers`` changes
only the speed.
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from opolyx.bots import derive_seed, play_game
from opolyx.engine.compiled import build_name
from opolyx.engine.game import Game
from opolyx.rules import house, load_board, load_rules
from opolyx.sim.shares import play_shared
from opolyx.sim.stats import COUNTED, GameCollector, Record, aggregate, game_record


@dataclass(frozen=True, slots=True)
class SimConfig:
    mode: str
    seats: int
    bots: tuple[str, ...]
    games: int
    seed: int
    rotate: bool = True
    vip: bool = False
    hard_ms: float | None = None
    #: House rules (opolyx.rules.house), checked, as sorted pairs so the config stays hashable.
    house_rules: tuple[tuple[str, Any], ...] = ()


def seat_strengths(config: SimConfig, index: int) -> list[str]:
    """Game ``index``'s line-up; rotating it every game spreads any seat advantage over all bots."""
    bots = list(config.bots)
    if not config.rotate:
        return bots
    k = index % config.seats
    return bots[k:] + bots[:k]


def play_one(config: SimConfig, index: int, *, keep_actions: bool = False) -> tuple[Game, GameCollector]:
    """Game ``index`` of the run, played to its end, with its counters; ``keep_actions`` keeps its log of
    actions too (the simulator never does; ``benchmarks/peer.py`` replays them)."""
    from opolyx.bots import make_bot

    seed = derive_seed(config.seed, "game", index)
    strengths = seat_strengths(config, index)
    board = load_board(load_rules(config.mode).board)
    collector = GameCollector(board)
    bots = [
        make_bot(s, derive_seed(seed, "bot", k), deterministic=True, budget_ms=config.hard_ms)
        for k, s in enumerate(strengths)
    ]
    info = [{"name": f"{s} {k + 1}", "bot": True, "vip": config.vip} for k, s in enumerate(strengths)]
    rules = house.rule_changes(dict(config.house_rules)) or None
    game = play_game(config.mode, config.seats, seed, strengths, bots=bots, seat_info=info, on_events=collector,
                     event_types=COUNTED, keep_actions=keep_actions, rules=rules)
    return game, collector


def run_one(config: SimConfig, index: int) -> Record:
    game, collector = play_one(config, index)
    return game_record(game, collector, index, game.seed, seat_strengths(config, index))


#: The young generation's threshold while simulating (Python's default is 700 allocations).
YOUNG_THRESHOLD = 10_000


def quiet_collector() -> bool:
    """Set the garbage collector up for a run of bot games (in the simulating process or a worker).

    What is loaded by then (modules, the mode's rule tables) lives as long as the process, so it is frozen
    out of every collection; young collections come every 10,000 allocations instead of 700, by which time
    most of a game's short-lived objects are freed by their reference counts and are never scanned. The few
    cycles a finished game leaves are still collected. Returns whether it froze anything: a process that
    froze objects itself (the server does at start) keeps them frozen and in its own charge.
    """
    gc.set_threshold(YOUNG_THRESHOLD, 10, 100)
    if gc.get_freeze_count():
        return False
    gc.collect()
    gc.freeze()
    return True


@contextmanager
def quiet_collection() -> Iterator[None]:
    """:func:`quiet_collector` for the block, then the collector as it was (thawing only what it froze)."""
    saved = gc.get_threshold()
    froze = quiet_collector()
    try:
        yield
    finally:
        if froze:
            gc.unfreeze()
        gc.set_threshold(*saved)


def iter_records(config: SimConfig, workers: int = 1, start_method: str | None = None) -> Iterator[Record]:
    """Records in game-index order; ``workers`` > 1 plays them in worker processes (:mod:`.shares`), which
    start by ``start_method`` (``fork`` or ``spawn``; :func:`pool_start_method` when not given)."""
    # Loaded here, before the collector's freeze in one process, and before a forked worker copies this one.
    load_board(load_rules(config.mode).board)
    if workers <= 1 or config.games <= 1:
        with quiet_collection():
            for index in range(config.games):
                yield run_one(config, index)
        return
    method = start_method or pool_start_method()
    # Started with this process's objects frozen: a forked worker's first collection then leaves the pages it
    # shares with this process alone, instead of touching (and so copying) every one of them.
    with _workers_skip_main(), quiet_collection():
        records = play_shared(multiprocessing.get_context(method), workers, partial(run_one, config), config.games,
                              16, setup=quiet_collector)
        first = next(records, None)
    try:
        if first is not None:
            yield first
            yield from records
    finally:
        records.close()  # stops the workers when the caller stops early


def pool_start_method() -> str:
    """How the worker processes start: forked on Linux, spawned elsewhere.

    A forked worker is a copy of this process, with the engine, the bots and the mode's tables already
    loaded: it plays its first game at once, where a spawned one first imports all of them (about 0.1 s
    each, which on a run of a few hundred games is a tenth of its time). Elsewhere fork is either missing
    (Windows) or unsafe with the system's own libraries (macOS), and Python's default there is spawn.
    """
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


@contextmanager
def _workers_skip_main() -> Iterator[None]:
    """Start workers without re-running the program's main module.

    A spawned worker normally re-runs ``__main__`` first; for the ``opolyx`` command that imports the whole
    server (web framework, database drivers), seconds per worker on a busy machine, while a worker needs
    only this module. Hiding the main module's path while the pool starts its workers skips that.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    spec = getattr(main, "__spec__", None)
    if main is None or path is None or spec is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def simulate(
    config: SimConfig,
    workers: int = 1,
    progress: Callable[[Iterator[Record], int], Iterator[Record]] | None = None,
    start_method: str | None = None,
) -> dict[str, Any]:
    """Play ``config.games`` games and return every figure; ``performance`` is the only part that
    depends on the machine rather than the seed. ``start_method``: see :func:`iter_records`."""
    if len(config.bots) != config.seats:
        raise ValueError(f"{config.seats} seats need {config.seats} bots, got {len(config.bots)}")
    start = time.perf_counter()
    records: Iterator[Record] = iter_records(config, workers, start_method)
    if progress is not None:
        records = progress(records, config.games)
    collected = list(records)
    elapsed = time.perf_counter() - start
    board = load_board(load_rules(config.mode).board)
    figures = aggregate(collected, board, config.seats)
    return {
        "config": {
            "mode": config.mode,
            "seats": config.seats,
            "bots": list(config.bots),
            "games": config.games,
            "seed": config.seed,
            "rotate": config.rotate,
            "vip": config.vip,
            "hard_ms": config.hard_ms,
            "house_rules": dict(config.house_rules) or None,
        },
        **figures,
        "performance": {
            "workers": workers,
            "build": build_name(),
            "seconds": elapsed,
            "games_per_second": config.games / elapsed if elapsed else 0.0,
            "player_turns_per_second": figures["player_turns"] / elapsed if elapsed else 0.0,
        },
    }


def format_report(data: dict[str, Any]) -> str:
    """The figures as a plain-text report for the terminal."""
    cfg = data["config"]
    perf = data["performance"]
    lines = [
        f"opolyx simulate: {cfg['games']} games of {cfg['mode']}, {cfg['seats']} seats, bots "
        f"{','.join(cfg['bots'])}, seed {cfg['seed']}",
        f"speed: {perf['games_per_second']:.2f} games/s, {perf['player_turns_per_second']:.0f} player-turns/s "
        f"({perf['workers']} worker(s), {perf['seconds']:.1f} s, {perf.get('build', 'pure Python')})",
        f"player-turns per game: {data['player_turns_per_game']:.1f}",
    ]
    r = data["rounds"]
    lines.append(
        f"rounds: mean {r['mean']:.1f}, min {r['min']}, p10 {r['p10']:.0f}, median {r['median']:.0f}, "
        f"p90 {r['p90']:.0f}, max {r['max']}"
    )
    lines.append("  histogram: " + ", ".join(f"{k}: {v}" for k, v in r["histogram"].items()))
    lines.append("ended by: " + ", ".join(
        f"{k} {v['games']} ({v['share']:.1%})" for k, v in data["end_reasons"].items()))
    if "first_player" in data:
        fp = data["first_player"]
        lines.append(f"first player wins: {fp['rate']:.1%} [{fp['ci95'][0]:.1%}, {fp['ci95'][1]:.1%}] "
                     f"(no advantage: {fp['fair']:.1%})")
    lines.append("win rate by bot (95 % Wilson CI):")
    for b, v in data["win_rate_by_bot"].items():
        lines.append(f"  {b:<8} {v['rate']:6.1%}  [{v['ci95'][0]:.1%}, {v['ci95'][1]:.1%}]  "
                     f"({v['wins']}/{v['games']} seat-games)")
    lines.append("win rate by seat (95 % Wilson CI):")
    for s, v in data["win_rate_by_seat"].items():
        lines.append(f"  seat {s}   {v['rate']:6.1%}  [{v['ci95'][0]:.1%}, {v['ci95'][1]:.1%}]")
    lines.append("landing frequency (top 10):")
    top = sorted(data["landing_frequency"], key=lambda x: -x["landings"])[:10]
    lines.append("  " + ", ".join(f"{x['square']} {x['id']} {x['share']:.2%}" for x in top))
    lines.append("rent per colour group (paid by tenants / received by owners, per game):")
    for g, v in data["rent_by_group"].items():
        n = max(1, data["games"])
        lines.append(f"  {g:<11} {v['paid_per_game']:10.0f} / {v['received'] / n:10.0f}")
    money = data["money_in_play"]
    if money:
        marks = [m for m in money if m["round"] in (1, 10, 25, 50, 100, 200, 300, 500)] + [money[-1]]
        seen: set[int] = set()
        parts = []
        for m in marks:
            if m["round"] not in seen:
                seen.add(m["round"])
                parts.append(f"r{m['round']} {m['mean_cash']:.0f} ({m['games']} games)")
        lines.append("money in play (mean total cash at round start): " + ", ".join(parts))
    return "\n".join(lines)
