"""``opolyx serve``: run the server on uvicorn.

An operator's mistake (a bad port, a database URL that does not parse, names a driver we cannot use
asynchronously, or points at nothing) is told in one line and a non-zero exit, before anything starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import logging
import os
import shutil
import tempfile
import time
import webbrowser
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from opolyx import usage

if TYPE_CHECKING:
    from fastapi import FastAPI

    from opolyx.server.http.serving import ReadyServer
    from opolyx.server.settings import Settings

# How long a worker may miss uvicorn's health check before it is restarted.
WORKER_HEALTHCHECK_SECONDS = 30

# One line per record, in every process: the single server and each of ``--workers``' processes.
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"

# SQLAlchemy async drivers the store is tested with.
ASYNC_DRIVERS = {"sqlite": {"aiosqlite"}, "postgresql": {"asyncpg"}}


def serve(
    # Each option names its environment variable (shown by --help as "[env var: …]"); the value read from it
    # is the one Settings would read.
    host: Annotated[str | None, typer.Option(envvar="OPOLYX_HOST", help="Address to listen on.")] = None,
    port: Annotated[
        int | None, typer.Option(min=0, max=65535, envvar="OPOLYX_PORT", help="Port to listen on, 0-65535.")
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            envvar="OPOLYX_DATABASE_URL",
            help="SQLAlchemy URL, e.g. postgresql+asyncpg://user@host/db; default an SQLite file in the "
            "data directory.",
        ),
    ] = None,
    data_dir: Annotated[str | None, typer.Option(envvar="OPOLYX_DATA_DIR", help="Data directory.")] = None,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open a browser.")] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            envvar="OPOLYX_WORKERS",
            help="Server processes sharing the port and the rooms; more than 1 needs PostgreSQL and "
            "OPOLYX_REDIS_URL.",
        ),
    ] = 1,
) -> None:
    """Start the opolyx server (migrates the database, restores unfinished games)."""
    # The web stack is imported here, not at the top: every ``opolyx`` command loads this module, and
    # ``opolyx simulate`` or ``opolyx verify`` should not wait about a second for a server they never start.
    from opolyx.server.http.app import create_app
    from opolyx.server.http.serving import ReadyServer
    from opolyx.server.http.transport import uvicorn_config
    from opolyx.server.settings import Settings

    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    if database is not None:
        overrides["database_url"] = database
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValueError as exc:
        _fail(f"invalid setting: {_first_line(exc)}")
    if not 0 <= settings.port <= 65535:
        _fail(f"invalid port {settings.port}: use 0-65535")
    problem = database_problem(settings)
    if problem is not None:
        _fail(problem)
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    url = settings.public_url()
    if workers > 1:
        _serve_workers(settings, overrides, workers, open_browser)
        return
    app = create_app(settings)
    typer.echo(f"opolyx: starting on {url} (database: {_describe(settings)})")
    server = ReadyServer(uvicorn_config(app, settings), f"opolyx ready: open {url}")
    if open_browser:
        webbrowser.open(url)
    with contextlib.suppress(SystemExit):  # uvicorn exits on a failed start; we say why below
        if settings.cpu_profile:
            _run_profiled(server, settings.cpu_profile)
        else:
            server.run()
    if not server.started:
        _fail(f"could not listen on {settings.host}:{settings.port} (see the error above)")


def _run_profiled(server: ReadyServer, path: str) -> None:
    """Serve under cProfile timed by the thread's CPU clock, so the figures say where the server's own
    cycles go even while other work shares the cores; written when the server stops (SIGTERM/SIGINT)."""
    profiler = cProfile.Profile(time.thread_time)

    def stopped() -> None:
        profiler.disable()
        profiler.dump_stats(path)

    server.on_stopped = stopped
    profiler.runcall(server.run)


def worker_app() -> FastAPI:
    """The app of one ``serve --workers`` process, logging as the single process does.

    A spawned worker starts with no logging set up, and the MCP library then installs its own
    rich-formatted handler for the whole process: it renders each logged traceback with syntax
    highlighting, about 530 ms of CPU per SQLAlchemy traceback against 1 ms plain, and a worker that
    logged a burst of errors stalled every one of its rooms for seconds.
    """
    from opolyx.server.http.app import create_app

    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    return create_app()


def _fail(message: str) -> NoReturn:
    usage.fail(message)  # one line on stderr and exit 2, as every command says its input is wrong


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


def database_problem(settings: Settings) -> str | None:
    """Why the configured database cannot be used, in one line; None when it answers."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    raw = settings.resolved_database_url()
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        return "the database URL does not parse; expected e.g. postgresql+asyncpg://user@host/db"
    backend, driver = url.get_backend_name(), url.drivername.partition("+")[2]
    drivers = ASYNC_DRIVERS.get(backend)
    if drivers is None:
        return f"unsupported database {backend!r}: use sqlite+aiosqlite or postgresql+asyncpg"
    if driver not in drivers:
        want = sorted(drivers)[0]
        return f"the database URL needs an async driver: {backend}+{want}://… (got {url.drivername!r})"
    try:
        asyncio.run(_ping(raw, settings.database_schema))
    except Exception as exc:  # any failure to connect or migrate is the operator's to fix
        return f"cannot use the database {_describe(settings)}: {type(exc).__name__}: {_first_line(exc)}"
    return None


async def _ping(url: str, schema: str) -> None:
    from opolyx.storage import SqlStore

    store = await asyncio.wait_for(SqlStore.open(url, schema=schema), timeout=30)
    try:
        await store.ping()
    finally:
        await store.close()


def _serve_workers(settings: Settings, overrides: dict[str, object], workers: int, open_browser: bool) -> None:
    """Several processes on one listening socket, sharing rooms through the cluster's Redis leases.

    uvicorn starts each worker afresh (spawn) and each builds its app from the environment, so the CLI's
    overrides, one session secret and the metrics directory are handed down through it.
    """
    import uvicorn

    from opolyx.server.accounts.identity import resolve_secret
    from opolyx.server.http.metrics import MULTIPROC_ENV
    from opolyx.server.http.transport import uvicorn_options

    if not settings.redis_url or settings.resolved_database_url().startswith("sqlite"):
        _fail("--workers above 1 needs PostgreSQL (--database) and Redis (OPOLYX_REDIS_URL): "
              "SQLite serves one process only")
    for name, value in overrides.items():
        os.environ[f"OPOLYX_{name.upper()}"] = str(value)
    os.environ["OPOLYX_SECRET_KEY"] = resolve_secret(settings)
    metrics_dir = tempfile.mkdtemp(prefix="opolyx-metrics-")
    os.environ[MULTIPROC_ENV] = metrics_dir
    url = settings.public_url()
    typer.echo(f"opolyx: starting {workers} workers on {url} (database: {_describe(settings)})")
    if open_browser:
        webbrowser.open(url)
    try:
        uvicorn.run(
            "opolyx.server.cli:worker_app",
            factory=True,
            workers=workers,
            # uvicorn restarts a worker that misses a 5 s health check, dropping every socket it holds
            # and moving its rooms; on a busy machine a slow worker is not a dead one.
            timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
            log_level="info",
            **uvicorn_options(settings),
        )
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)


def _describe(settings: Settings) -> str:
    url = settings.resolved_database_url()
    if "@" in url:  # hide any password
        scheme, rest = url.split("://", 1)
        url = f"{scheme}://…@{rest.split('@', 1)[1]}"
    return url
