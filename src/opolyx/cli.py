"""The ``opolyx`` command.

The engine, the bots and the simulator need only the core packages; a command that needs an extra
(``serve`` and ``play`` the server, ``mcp`` the agents, ``simulate --plot`` the plots) imports it when it
runs, and says in one line which extra to install when it is missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from opolyx.mcp.stdio import mcp_command
from opolyx.server.cli import serve
from opolyx.sim.cli import simulate_command
from opolyx.story import story
from opolyx.verify_cli import verify_command

P = ParamSpec("P")
R = TypeVar("R")

# The top-level modules each extra of pyproject.toml brings, by the name they are imported under
# (pydantic is not among them: typer, a core package, brings it).
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": (
        "fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "aiosqlite", "asyncpg", "pydantic_settings",
        "itsdangerous", "orjson", "aiosmtplib", "redis", "prometheus_client",
    ),
    "agents": ("httpx", "websockets", "mcp", "anyio"),
    "plots": ("matplotlib",),
}
EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


def extra_for(exc: ModuleNotFoundError) -> str | None:
    """The extra that brings the module ``exc`` did not find, if one does."""
    return EXTRA_OF.get((exc.name or "").partition(".")[0])


def tells_missing_extra(command: Callable[P, R]) -> Callable[P, R]:
    """``command``, which fails in one line naming the extra to install when an extra's module is missing."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except ModuleNotFoundError as exc:
            extra = extra_for(exc)
            if extra is None:
                raise
            typer.echo(
                f"opolyx: this command needs the {extra} extra ({exc.name} is not installed): "
                f"pip install 'opolyx[{extra}]'",
                err=True,
            )
            raise typer.Exit(1) from None

    return run


app = typer.Typer(help="opolyx: a Monopoly-style board game.", no_args_is_help=True)
app.command("serve")(tells_missing_extra(serve))
app.command("simulate")(tells_missing_extra(simulate_command))
app.command("story")(story)
app.command("mcp")(tells_missing_extra(mcp_command))
app.command("verify")(verify_command)


@app.command("play")
@tells_missing_extra
def play(
    port: int = typer.Option(8000, help="Port to listen on."),
) -> None:
    """Start a local server and open it in the browser."""
    serve(host=None, port=port, database=None, data_dir=None, open_browser=True)


if __name__ == "__main__":
    app()
