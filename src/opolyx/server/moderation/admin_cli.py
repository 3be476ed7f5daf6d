"""``opolyx admin``: the operator page's work from a shell, on the database the server uses (the same
``OPOLYX_`` settings). Every command that changes something is written to the audit log, with the
operator named by ``--operator`` (default: ``cli:<login name>``) and the reason given.

With a cluster (``OPOLYX_REDIS_URL``) the live effects reach every server process at once: a banned
person's sockets close, a closed room stops, a removed line leaves the screens. A single server without
Redis cannot be reached from here: sessions and keys still end at once (the next request or socket is
refused), while sockets already open and the room's screen follow when the operator page does it, or at
the server's next start.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import typer

T = TypeVar("T")

admin = typer.Typer(help="Moderation: reports, sanctions, rooms and the audit log.", no_args_is_help=True)

OperatorOpt = Annotated[
    str | None, typer.Option("--operator", help="Who acts, for the audit log (default cli:<login name>).")
]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why (written to the audit log).")]


def _who(operator: str | None) -> str:
    return operator or f"cli:{getpass.getuser()}"


def _run(work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run ``work(store, settings)`` against the configured database."""
    from opolyx.server.settings import Settings
    from opolyx.storage import SqlStore

    settings = Settings()

    async def go() -> T:
        store = await SqlStore.open(settings.resolved_database_url(), schema=settings.database_schema)
        try:
            return await work(store, settings)
        finally:
            await store.close()

    return asyncio.run(go())


async def _tell_servers(settings: Any, message: dict[str, Any]) -> bool:
    """Post ``message`` to every server process of the cluster (False: no cluster configured)."""
    if not settings.redis_url:
        return False
    from redis.asyncio import Redis

    from opolyx.server.cluster.node import CHANNEL, EVERYONE
    from opolyx.server.wire import dumps

    redis = Redis.from_url(settings.redis_url)
    try:
        await redis.publish(CHANNEL + EVERYONE, dumps({"from": "cli", "m": [message]}))
    finally:
        await redis.aclose()
    return True


def _echo(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@admin.command("reports")
def reports(show_all: Annotated[bool, typer.Option("--all", help="Handled ones too.")] = False) -> None:
    """The report queue, each with the reported line and the chat and game around it."""

    async def work(store: Any, _: Any) -> list[Any]:
        return [r.__dict__ for r in await store.reports(open_only=not show_all, limit=200)]

    _echo(_run(work))


@admin.command("close-report")
def close_report(
    report_id: int, outcome: Annotated[str, typer.Option(help="What was done.")], operator: OperatorOpt = None
) -> None:
    """Mark a report handled."""
    from opolyx.server.moderation import actions

    if not _run(lambda store, _: actions.close_report(store, _who(operator), report_id, outcome)):
        raise typer.BadParameter(f"no open report {report_id}")
    typer.echo(f"report {report_id} closed")


def _sanction(
    kind: str, user: str | None, address: str | None, minutes: int, reason: str, operator: str | None
) -> None:
    from opolyx.server.moderation import actions

    if (user is None) == (address is None):
        raise typer.BadParameter("give --user or --address")

    async def work(store: Any, settings: Any) -> str:
        if user is not None and await store.get_user(user) is None:
            raise typer.BadParameter(f"no person {user}")
        sid = await actions.sanction(
            store, None, _who(operator), kind=kind, user_id=user, address=address, minutes=minutes, reason=reason
        )
        live = ""
        if kind == "ban":
            message: dict[str, Any] = (
                {"t": "close_user", "user": user, "sessions_only": False}
                if user
                else {"t": "close_address", "address": address}
            )
            live = " and every socket closed" if await _tell_servers(settings, message) else ""
        return f"{kind} {sid} set for {minutes} minutes{live}"

    typer.echo(_run(work))


Minutes = Annotated[int, typer.Option(min=1, help="How long, in minutes.")]
UserOpt = Annotated[str | None, typer.Option("--user", help="A person's account id.")]
AddressOpt = Annotated[str | None, typer.Option("--address", help="An IP address.")]


@admin.command("ban")
def ban(
    minutes: Minutes, reason: ReasonOpt, user: UserOpt = None, address: AddressOpt = None, operator: OperatorOpt = None
) -> None:
    """Ban a person (their sessions, keys and sockets end) or an address, for a time."""
    _sanction("ban", user, address, minutes, reason, operator)


@admin.command("mute")
def mute(
    minutes: Minutes, reason: ReasonOpt, user: UserOpt = None, address: AddressOpt = None, operator: OperatorOpt = None
) -> None:
    """Keep a person or an address out of every chat for a time."""
    _sanction("mute", user, address, minutes, reason, operator)


@admin.command("lift")
def lift(sanction_id: int, reason: ReasonOpt, operator: OperatorOpt = None) -> None:
    """End a ban or mute early."""
    from opolyx.server.moderation import actions

    if not _run(lambda store, _: actions.lift(store, _who(operator), sanction_id, reason)):
        raise typer.BadParameter(f"no sanction {sanction_id}")
    typer.echo(f"sanction {sanction_id} lifted")


@admin.command("sanctions")
def sanctions(show_all: Annotated[bool, typer.Option("--all", help="Ended ones too.")] = False) -> None:
    """Bans and mutes in force (or all of them)."""
    _echo(_run(lambda store, _: _dicts(store.sanctions(active_only=not show_all, limit=500))))


async def _dicts(found: Awaitable[list[Any]]) -> list[Any]:
    return [r.__dict__ for r in await found]


@admin.command("rooms")
def rooms() -> None:
    """Live rooms (waiting and running, private ones too) and who sits in them."""

    async def work(store: Any, _: Any) -> list[Any]:
        found = await store.list_rooms(["waiting", "running"], public_only=False, limit=1000)
        return [
            {
                "id": r.id,
                "mode": r.mode,
                "status": r.status,
                "public": r.public,
                "players": [{"seat": s.seat, "name": s.name, "user": s.user_id, "bot": s.bot} for s in r.seats],
            }
            for r in found
        ]

    _echo(_run(work))


@admin.command("close-room")
def close_room(room_id: str, reason: ReasonOpt, operator: OperatorOpt = None) -> None:
    """End a running game where it stands (no result, no XP) or close a waiting room."""

    async def work(store: Any, settings: Any) -> str:
        room = await store.get_room(room_id)
        if room is None:
            raise typer.BadParameter(f"no room {room_id}")
        if not await _tell_servers(settings, {"t": "room_op", "room": room_id, "op": "operator_close", "args": []}):
            await store.close_room(room_id)
        await store.audit(_who(operator), "close_room", f"room:{room_id}", reason, {"status": room.status})
        return f"room {room_id} closed"

    typer.echo(_run(work))


@admin.command("remove-line")
def remove_line(room_id: str, at: float, reason: ReasonOpt, operator: OperatorOpt = None) -> None:
    """Take a chat line out (the room and the time it was said, as a report shows them)."""
    from opolyx.server.moderation.room_calls import FORGET_LINE, REMOVED_TEXT

    async def work(store: Any, settings: Any) -> str:
        if not await store.remove_chat_line(room_id, at, REMOVED_TEXT):
            raise typer.BadParameter("no such line")
        await _tell_servers(settings, {"t": "room_op", "room": room_id, "op": FORGET_LINE, "args": [at]})
        await store.audit(_who(operator), "remove_line", f"room:{room_id}", reason, {"at": at})
        return "line removed"

    typer.echo(_run(work))


@admin.command("audit")
def audit(limit: Annotated[int, typer.Option(min=1, max=10_000)] = 100) -> None:
    """The audit log, newest first: who did what to whom, why and when."""
    _echo(_run(lambda store, _: _dicts(store.audit_log(limit))))
