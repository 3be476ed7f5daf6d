"""``opolyx verify <replay file>``: check a finished game's dice on your own machine.

The file is a replay as the server serves it (``GET /games/<id>/replay?events=true``). The seed it
reveals must match the commitment published when the game started, and replaying the seed with the
action log here, with this copy of the rules engine, must give every die and card the file records.

The commitment must come from outside the file: ``--commitment HEX`` (the one you saw at the start), or
``--server URL`` (fetched from the server the game was played on). A file carries its own commitment, so
a wholly forged replay (a new seed and its matching commitment) would agree with itself; without an
outside commitment the verdict is "not verified".
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Annotated, NoReturn

import typer

import opolyx.engine
from opolyx import fairness, usage
from opolyx.usage import plural


def verify_command(
    replay_file: Annotated[Path, typer.Argument(help="A replay JSON file (GET /games/<id>/replay?events=true).")],
    commitment: Annotated[
        str | None,
        typer.Option(help="The commitment you saw at the game's start (hex).", metavar="HEX"),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(help="Fetch the commitment from the server the game was played on (http(s)://host:port).",
                     metavar="URL"),
    ] = None,
) -> None:
    """Recompute every die and card of a finished game from its revealed seed and compare with a
    commitment from outside the file (--commitment or --server)."""
    try:
        replay = json.loads(replay_file.read_text(encoding="utf-8"))
        if not isinstance(replay, dict) or not isinstance(replay.get("actions"), list):
            raise ValueError("not a replay (no 'actions' list)")
    except OSError as exc:
        usage.fail(f"cannot read {replay_file}: {exc.strerror or exc}")
    except ValueError as exc:  # not JSON, or not a replay
        usage.fail(f"cannot read {replay_file}: {' '.join(str(exc).split())}")
    if replay.get("start", 0) != 0 or replay.get("total_actions", len(replay["actions"])) != len(replay["actions"]):
        usage.fail(f"{replay_file} is one page of a replay; fetch it whole (no start/limit)")
    if server is not None:
        fetched = _server_commitment(server, replay.get("id"))
        if commitment is not None and commitment.lower() != fetched:
            _not_verified(f"--commitment differs from the one {server} published for this game")
        commitment = fetched
    if commitment is None:
        _not_verified("the commitment is only inside the file, which proves nothing; pass --commitment HEX "
                      "(the one you saw at the start) or --server URL (the server the game was played on)")
    fair = replay.get("fairness")
    replay["fairness"] = dict(fair if isinstance(fair, dict) else {}, commitment=commitment.lower())
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


def _not_verified(why: str) -> NoReturn:
    typer.echo(f"not verified: {why}")
    raise typer.Exit(1)


def _server_commitment(server: str, game_id: object) -> str:
    """The commitment the server published for the game (its replay's ``fairness.commitment``)."""
    if not server.startswith(("http://", "https://")):
        usage.fail("give the server as http(s)://host[:port]", "--server")
    if not isinstance(game_id, str) or not game_id:
        _not_verified("the file names no game id to ask the server about")
    url = f"{server.rstrip('/')}/api/games/{urllib.parse.quote(game_id, safe='')}/replay?limit=1"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        _not_verified(f"{server} gave no commitment for game {game_id} (HTTP {exc.code})")
    except (OSError, ValueError) as exc:
        _not_verified(f"cannot fetch the commitment from {server}: {' '.join(str(exc).split())}")
    fetched = (body.get("fairness") or {}).get("commitment") if isinstance(body, dict) else None
    if not isinstance(fetched, str) or not fetched:
        _not_verified(f"{server} gave no commitment for game {game_id}")
    return fetched.lower()
