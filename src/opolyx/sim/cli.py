"""``opolyx simulate``: play many bot games and print (or save) the balancing figures."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from opolyx.rules import mode_names
from opolyx.sim.runner import SimConfig, bots_list, default_bots, format_report, simulate

T = TypeVar("T")


def simulate_command(
    mode: Annotated[str, typer.Option(help="Game mode: " + ", ".join(mode_names()) + ".")] = "classic",
    seats: Annotated[int, typer.Option(help="Seats per game.")] = 4,
    bots: Annotated[
        str,
        typer.Option(help="Comma-separated strengths (easy, normal, hard), one per seat; a shorter list repeats."),
    ] = "normal",
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option(help="Master seed; each game's seed derives from it and the game index.")] = 1,
    workers: Annotated[int, typer.Option(min=1, help="Processes to play in (results do not depend on it).")] = 1,
    json_file: Annotated[Path | None, typer.Option("--json", help="Write every figure to this JSON file.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Draw landing heat and win rates to this PNG file.")] = None,
    rotate: Annotated[bool, typer.Option(help="Rotate the line-up every game to cancel seat effects.")] = True,
    vip: Annotated[bool, typer.Option(help="Seat VIP accounts (enables Halal's Murabaha).")] = False,
    hard_ms: Annotated[
        float | None, typer.Option(help="Hard bot look-ahead budget per decision in ms (default 30).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    league: Annotated[
        bool,
        typer.Option(help="Round-robin league: each challenger against seats-1 copies of every other entrant "
                          "(--bots lists the entrants), rated with OpenSkill; --games is per pairing."),
    ] = False,
    field: Annotated[
        str | None,
        typer.Option(help="League: module whose STRATEGIES adds outside strategies (e.g. benchmarks.field)."),
    ] = None,
    challengers: Annotated[
        str | None, typer.Option(help="League: the entrants that sit alone (default: every entrant).")
    ] = None,
) -> None:
    """Play bot games and report speed, game length, endings, win rates, landings, rent and money."""
    if mode not in mode_names():
        raise typer.BadParameter(f"unknown mode {mode!r}; modes: {', '.join(mode_names())}", param_hint="--mode")
    if league:
        from opolyx.sim.league_cli import league_command

        league_command(mode=mode, seats=seats, bots=bots, challengers=challengers, field=field, games=games,
                       seed=seed, workers=workers, vip=vip, hard_ms=hard_ms, json_file=json_file, plot=plot,
                       progress=progress)
        return
    given = bots_list(bots)
    unknown = [b for b in given if b not in ("easy", "normal", "hard")]
    if unknown:
        raise typer.BadParameter(f"unknown strength(s) {', '.join(unknown)}", param_hint="--bots")
    line_up = default_bots(seats, given)
    if len(line_up) != seats:
        raise typer.BadParameter(f"{len(line_up)} bots for {seats} seats", param_hint="--bots")
    config = SimConfig(mode=mode, seats=seats, bots=line_up, games=games, seed=seed, rotate=rotate, vip=vip,
                       hard_ms=hard_ms)

    def draw(data: dict[str, Any], path: Path) -> None:
        from opolyx.sim.plot import write_plot

        write_plot(data, path)

    run_and_report(
        lambda: simulate(config, workers=workers, progress=progress_bar(progress)),
        format_report,
        draw,
        json_file=json_file,
        plot=plot,
    )


def progress_bar(progress: bool) -> Callable[[Iterator[T], int], Iterator[T]]:
    """A tqdm bar over the games as they finish (silent when ``progress`` is off)."""

    def bar(records: Iterator[T], total: int) -> Iterator[T]:
        from tqdm import tqdm

        yield from tqdm(records, total=total, unit="game", disable=not progress, leave=False)

    return bar


def run_and_report(
    run: Callable[[], dict[str, Any]],
    describe: Callable[[dict[str, Any]], str],
    draw: Callable[[dict[str, Any], Path], None],
    *,
    json_file: Path | None,
    plot: Path | None,
) -> None:
    """Run the games, then print the figures and save them as JSON and as a plot when asked."""
    try:
        data = run()
    except Exception as exc:  # an engine refusal (bad seat count for the mode, …) is a usage error here
        if getattr(exc, "code", None) is None:
            raise
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(describe(data))
    if json_file is not None:
        json_file.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        typer.echo(f"figures written to {json_file}")
    if plot is not None:
        draw(data, plot)
        typer.echo(f"plot written to {plot}")
