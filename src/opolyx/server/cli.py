"""``opolyx serve``: run the server on uvicorn."""

from __future__ import annotations

import logging
import webbrowser
from typing import Annotated

import typer
import uvicorn

from opolyx.server.app import create_app
from opolyx.server.settings import Settings


def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on [env OPOLYX_HOST].")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on [env OPOLYX_PORT].")] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            help="SQLAlchemy URL, e.g. postgresql+asyncpg://user@host/db; default an SQLite file in the "
            "data directory [env OPOLYX_DATABASE_URL].",
        ),
    ] = None,
    data_dir: Annotated[str | None, typer.Option(help="Data directory [env OPOLYX_DATA_DIR].")] = None,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open a browser.")] = False,
) -> None:
    """Start the opolyx server (migrates the database, restores unfinished games)."""
    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    if database is not None:
        overrides["database_url"] = database
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    settings = Settings(**overrides)  # type: ignore[arg-type]
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app(settings)
    url = settings.public_url()
    typer.echo(f"opolyx: starting on {url} (database: {_describe(settings)})")
    if open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws_max_size=settings.ws_hard_max_bytes,
        log_level="info",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    server.run()


def _describe(settings: Settings) -> str:
    url = settings.resolved_database_url()
    if "@" in url:  # hide any password
        scheme, rest = url.split("://", 1)
        url = f"{scheme}://…@{rest.split('@', 1)[1]}"
    return url
