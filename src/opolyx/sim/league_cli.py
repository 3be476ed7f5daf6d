"""The terminal side of ``opolyx simulate --league``: parse the lists, run, print, save, draw."""

from __future__ import annotations

from pathlib import Path

import typer

from opolyx.sim.cli import progress_bar, run_and_report
from opolyx.sim.league import LeagueConfig, UnknownEntrant, check_entrants, format_league, run_league, write_league_plot
from opolyx.sim.runner import bots_list


def league_command(*, mode: str, seats: int, bots: str, challengers: str | None, field: str | None, games: int,
                   seed: int, workers: int, vip: bool, hard_ms: float | None, json_file: Path | None,
                   plot: Path | None, progress: bool) -> None:
    entrants = bots_list(bots)
    config = LeagueConfig(mode=mode, seats=seats, entrants=entrants,
                          challengers=bots_list(challengers) if challengers else entrants, games=games, seed=seed,
                          field=field, vip=vip, hard_ms=hard_ms)
    try:
        check_entrants(config)
    except (UnknownEntrant, ImportError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots/--challengers/--field") from exc

    run_and_report(
        lambda: run_league(config, workers=workers, progress=progress_bar(progress)),
        format_league,
        write_league_plot,
        json_file=json_file,
        plot=plot,
    )
