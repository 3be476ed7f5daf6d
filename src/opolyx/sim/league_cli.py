"""The terminal side of ``opolyx simulate --league``: parse the lists, run, print, save, draw."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

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

    def bar(records: Iterator[dict[str, Any]], total: int) -> Iterator[dict[str, Any]]:
        from tqdm import tqdm

        yield from tqdm(records, total=total, unit="game", disable=not progress, leave=False)

    try:
        data = run_league(config, workers=workers, progress=bar)
    except Exception as exc:  # an engine refusal (bad seat count for the mode, …) is a usage error here
        if getattr(exc, "code", None) is None:
            raise
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(format_league(data))
    if json_file is not None:
        json_file.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        typer.echo(f"figures written to {json_file}")
    if plot is not None:
        write_league_plot(data, plot)
        typer.echo(f"plot written to {plot}")
