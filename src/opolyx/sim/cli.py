"""``opolyx simulate``: play many bot games, or a league of bots and outside strategies, and print (or save)
the figures.

Every option is checked before the first game (:mod:`opolyx.usage`): a mode and seat count the engine
plays, strengths and entrants it knows, output files that can be written in a format that exists. A run
that has started ends with its figures.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from opolyx import usage
from opolyx.rules import house, mode_names
from opolyx.sim.league import (
    PACKAGED_FIELD,
    LeagueConfig,
    UnknownEntrant,
    check_entrants,
    format_league,
    run_league,
    write_league_plot,
)
from opolyx.sim.runner import SimConfig, format_report, simulate
from opolyx.sim.variant import RulesFileError, comparison, format_comparison, read_rules_file

T = TypeVar("T")

#: How long a league takes, for --help, so nobody starts a 20-minute run unawares. Most of a league game's
#: time is the hard bot's look-ahead.
LEAGUE_TIME = (
    "A league plays challengers × (entrants - 1) × --games games, about a quarter of a second each on one "
    "core in pure Python: --bots hard,normal,builder,colour,trader --challengers hard,normal --games 600 is "
    "4,800 games, about 20 minutes (--workers divides it)."
)


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
    plot: Annotated[
        Path | None,
        typer.Option(help="Draw landing heat and win rates to this picture file (.png, .svg, .pdf, …)."),
    ] = None,
    rotate: Annotated[bool, typer.Option(help="Rotate the line-up every game to cancel seat effects.")] = True,
    vip: Annotated[bool, typer.Option(help="Seat VIP accounts (enables Halal's Murabaha).")] = False,
    hard_ms: Annotated[
        float | None, typer.Option(help="Hard bot look-ahead budget per decision in ms (default 30).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    league: Annotated[
        bool,
        typer.Option(help="Round-robin league: each challenger against seats-1 copies of every other entrant "
                          "(--bots lists the entrants), rated with OpenSkill; --games is per pairing. "
                          + LEAGUE_TIME),
    ] = False,
    field: Annotated[
        str | None,
        typer.Option(help=f"League: module whose STRATEGIES adds outside strategies ({PACKAGED_FIELD}: builder, "
                          "colour, hoarder, shark, trader, jailer)."),
    ] = None,
    challengers: Annotated[
        str | None, typer.Option(help="League: the entrants that sit alone (default: every entrant).")
    ] = None,
    rules: Annotated[
        Path | None,
        typer.Option("--rules", help="House rules: a JSON or TOML file of changes to the mode (docs/rules.md "
                                     "'House rules'; an optional 'mode' field picks the mode). Plays the variant "
                                     "and the standard mode on the same seeds and compares game length, "
                                     "first-player advantage and how often the round limit decides."),
    ] = None,
) -> None:
    """Play bot games and report speed, game length, endings, win rates, landings, rent and money."""
    house_rules: dict[str, Any] = {}
    if rules is not None:
        try:
            mode, house_rules = read_rules_file(rules, mode)
        except RulesFileError as exc:
            usage.fail(str(exc), "--rules")
        if league:
            usage.fail("--rules compares a variant with its mode; it does not combine with --league", "--rules")
    usage.table(mode, seats)
    usage.non_negative(hard_ms, "--hard-ms")
    usage.output_file(json_file, "--json")
    if plot is not None:
        from opolyx.sim.plot import formats

        usage.output_file(plot, "--plot", formats())
    if league:
        league_command(mode=mode, seats=seats, bots=bots, challengers=challengers, field=field, games=games,
                       seed=seed, workers=workers, vip=vip, hard_ms=hard_ms, json_file=json_file, plot=plot,
                       progress=progress)
        return
    for option, value in (("--field", field), ("--challengers", challengers)):
        if value is not None:
            usage.fail(f"{option} is for a league only: add --league")
    line_up = usage.per_seat(usage.strengths(bots, "--bots"), seats, "--bots", "bot")
    config = SimConfig(mode=mode, seats=seats, bots=line_up, games=games, seed=seed, rotate=rotate, vip=vip,
                       hard_ms=hard_ms)

    def draw(data: dict[str, Any], path: Path) -> None:
        from opolyx.sim.plot import write_plot

        write_plot(data.get("variant", data), path)

    if rules is not None:
        variant = dataclasses.replace(config, house_rules=tuple(sorted(house_rules.items())))

        def both() -> dict[str, Any]:
            played = simulate(variant, workers=workers, progress=progress_bar(progress))
            standard = simulate(config, workers=workers, progress=progress_bar(progress))
            return {
                "mode": mode,
                "house_rules": house_rules,
                "changes": house.changes(mode, house_rules),
                "variant": played,
                "standard": standard,
                "comparison": comparison(played, standard),
            }

        run_and_report(both, format_comparison, draw, json_file=json_file, plot=plot)
        return

    run_and_report(
        lambda: simulate(config, workers=workers, progress=progress_bar(progress)),
        format_report,
        draw,
        json_file=json_file,
        plot=plot,
    )


def league_command(*, mode: str, seats: int, bots: str, challengers: str | None, field: str | None, games: int,
                   seed: int, workers: int, vip: bool, hard_ms: float | None, json_file: Path | None,
                   plot: Path | None, progress: bool) -> None:
    """``--league``: check the entrants (and load the field module) before the first game, then play."""
    entrants = usage.names(bots, "--bots")
    seated_alone = usage.names(challengers, "--challengers") if challengers is not None else entrants
    config = LeagueConfig(mode=mode, seats=seats, entrants=entrants, challengers=seated_alone, games=games,
                          seed=seed, field=field, vip=vip, hard_ms=hard_ms)
    try:
        check_entrants(config)
    except (UnknownEntrant, ImportError) as exc:
        usage.fail(str(exc), "--field" if isinstance(exc, ImportError) else "--bots/--challengers")

    run_and_report(
        lambda: run_league(config, workers=workers, progress=progress_bar(progress)),
        format_league,
        write_league_plot,
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
    except Exception as exc:  # an engine refusal the checks above did not foresee is still a usage error
        if getattr(exc, "code", None) is None:
            raise
        usage.fail(str(exc))
    typer.echo(describe(data))
    if json_file is not None:
        json_file.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        typer.echo(f"figures written to {json_file}")
    if plot is not None:
        draw(data, plot)
        typer.echo(f"plot written to {plot}")
