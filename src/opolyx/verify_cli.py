"""``opolyx verify <replay file>``: check a finished game's dice on your own machine.

The file is a replay as the server serves it (``GET /games/<id>/replay?events=true``). The seed it
reveals must match the commitment published in the game's first event, and replaying the seed with the
action log here, with this copy of the rules engine, must give every die and card the file records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

import opolyx.engine
from opolyx import fairness, usage
from opolyx.usage import plural


def verify_command(
    replay_file: Annotated[Path, typer.Argument(help="A replay JSON file (GET /games/<id>/replay?events=true).")],
    commitment: Annotated[
        str | None,
        typer.Option(help="The commitment you saw at the game's start (else the one in the file)."),
    ] = None,
) -> None:
    """Recompute every die and card of a finished game from its revealed seed and compare."""
    try:
        replay = json.loads(replay_file.read_text(encoding="utf-8"))
        if not isinstance(replay, dict) or not isinstance(replay.get("actions"), list):
            raise ValueError("not a replay (no 'actions' list)")
    except OSError as exc:
        usage.fail(f"cannot read {replay_file}: {exc.strerror or exc}")
    except ValueError as exc:  # not JSON, or not a replay
        usage.fail(f"cannot read {replay_file}: {' '.join(str(exc).split())}")
    if commitment is not None and isinstance(replay.get("fairness"), dict):
        replay["fairness"] = dict(replay["fairness"], commitment=commitment)
    if replay.get("start", 0) != 0 or replay.get("total_actions", len(replay["actions"])) != len(replay["actions"]):
        usage.fail(f"{replay_file} is one page of a replay; fetch it whole (no start/limit)")
    report = fairness.verify(replay, opolyx.engine)
    recorded = any("events" in a for a in replay["actions"])
    typer.echo(f"commitment: {'matches the revealed seed' if report.commitment_ok else 'DOES NOT MATCH'}")
    typer.echo(f"replayed {plural(report.steps, 'action')}: {plural(report.dice, 'dice roll')}, "
               f"{plural(report.cards, 'card')}")
    if not recorded:
        typer.echo("note: the file has no events (add ?events=true); only the result was compared")
    for line in report.mismatches[:20]:
        typer.echo(f"mismatch: {line}")
    if report.ok:
        typer.echo("verdict: fair — every die and card follows from the committed seed")
        return
    typer.echo("verdict: NOT VERIFIED")
    raise typer.Exit(1)
