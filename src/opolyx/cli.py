"""The ``opolyx`` command.

The engine, the bots and the simulator need only the core packages; a command that needs an extra
(``serve`` and ``play`` the server, ``mcp`` the agents, ``simulate --plot`` the plots) imports it when it
runs, and says in one line which extra to install when it is missing.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import typer

from opolyx.mcp.stdio import mcp_command
from opolyx.server.cli import serve
from opolyx.server.moderation.admin_cli import admin
from opolyx.sim.cli import simulate_command
from opolyx.story import story
from opolyx.usage import OneLineErrors
from opolyx.verify_cli import verify_command

P = ParamSpec("P")
R = TypeVar("R")

# The top-level modules each extra of pyproject.toml brings, by the name they are imported under.
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": (
        "fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "aiosqlite", "asyncpg", "pydantic",
        "pydantic_settings", "itsdangerous", "orjson", "aiosmtplib", "email_validator", "redis", "prometheus_client",
        "glin_profanity",
    ),
    "agents": ("httpx", "websockets", "mcp", "anyio"),
    "plots": ("matplotlib",),
}
EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


def extra_for(exc: ModuleNotFoundError) -> str | None:
    """The extra that brings the module ``exc`` did not find, if one does."""
    return EXTRA_OF.get((exc.name or "").partition(".")[0])


def missing_extra(extra: str, module: str) -> typer.Exit:
    typer.echo(
        f"opolyx: this command needs the {extra} extra ({module} is not installed): pip install 'opolyx[{extra}]'",
        err=True,
    )
    return typer.Exit(1)


def tells_missing_extra(
    command: Callable[P, R], needs: Callable[[dict[str, Any]], str | None] | None = None
) -> Callable[P, R]:
    """``command``, which fails in one line naming the extra to install when an extra's module is missing.

    ``needs`` names the extra the given options need, checked before the command starts (so that
    ``simulate --plot`` does not play its games first).
    """

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        extra = needs(kwargs) if needs is not None else None
        if extra is not None:
            absent = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
            if absent:
                raise missing_extra(extra, absent[0])
        try:
            return command(*args, **kwargs)
        except ModuleNotFoundError as exc:
            extra = extra_for(exc)
            if extra is None:
                raise
            raise missing_extra(extra, exc.name or extra) from None

    return run


# Every command's bad input is told in one line on stderr, exit 2 (opolyx.usage).
app = typer.Typer(help="opolyx: a Monopoly-style board game.", no_args_is_help=True, cls=OneLineErrors)
app.command("serve")(tells_missing_extra(serve))
app.command("simulate")(
    tells_missing_extra(simulate_command, needs=lambda options: "plots" if options.get("plot") else None)
)
app.command("story")(story)
app.command("mcp")(tells_missing_extra(mcp_command))
app.command("verify")(verify_command)
app.add_typer(admin, name="admin")


@app.command("play")
@tells_missing_extra
def play(
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on, 0-65535."),
) -> None:
    """Start a local server and open it in the browser."""
    serve(host=None, port=port, database=None, data_dir=None, open_browser=True)


if __name__ == "__main__":
    app()
