"""Application wiring: ``create_app(settings)`` builds routes and middleware; ``lifespan`` owns resources.

Nothing here is a module-level singleton: the store, rate limiter, hubs and signer live on
``app.state.services`` (:class:`opolyx.server.http.deps.Services`) for as long as the app runs, so two
apps in one process never share state. This is the one module that knows every part of the server;
the parts are handed what they need here (the room service gets the socket's frame handler when it is
built), none reaches back for it.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Route

from opolyx import __version__
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError, RoomRefused
from opolyx.protocol.text import text_code
from opolyx.server.accounts.apikey_routes import router as keys_router
from opolyx.server.accounts.identity import SessionSigner, resolve_secret
from opolyx.server.accounts.routes import router as accounts_router
from opolyx.server.accounts.session_routes import router as session_router
from opolyx.server.cluster.handoff import Handoff
from opolyx.server.cluster.handoff import supported as handoff_supported
from opolyx.server.cluster.node import Cluster
from opolyx.server.engine_api import EngineApi, load_engine
from opolyx.server.http.collector import FullCollections
from opolyx.server.http.deps import Services
from opolyx.server.http.guard import GuardMiddleware
from opolyx.server.http.metrics import ServerMetrics
from opolyx.server.http.metrics import router as metrics_router
from opolyx.server.http.ratelimit import RateLimiter, Rule, SharedRateLimiter
from opolyx.server.http.transport import redact_access_log
from opolyx.server.moderation.operator_routes import router as operator_router
from opolyx.server.moderation.social_routes import router as social_router
from opolyx.server.play.context import HubContext
from opolyx.server.play.endgame_routes import router as endgame_router
from opolyx.server.play.lobby_routes import router as lobby_router
from opolyx.server.play.quickplay import QuickPlay
from opolyx.server.play.quickplay_routes import router as quickplay_router
from opolyx.server.play.quickplay_store import MemoryQueue, QueueStore, RedisQueue
from opolyx.server.play.replays import ReplayCache
from opolyx.server.play.rooms import RoomService
from opolyx.server.play.ws import FrameHandler
from opolyx.server.play.ws import router as ws_router
from opolyx.server.settings import Settings
from opolyx.storage import SqlStore

if TYPE_CHECKING:
    from opolyx.server.agents.mcp_endpoint import McpEndpoint

log = logging.getLogger("opolyx.server")
MCP_PATH = "/mcp"

WEB_DIR = Path(__file__).resolve().parents[2] / "web"


# The HTTP status of a refusal by a room or the room service (errors.RoomRefused), by its code; any other
# code (an action the engine refused while resigning) is a conflict, 409.
REFUSAL_STATUS = {
    E.INVALID_REQUEST: 400,
    E.NOT_AUTHENTICATED: 401,
    E.ROOM_NOT_FOUND: 404,
    E.NOT_IN_ROOM: 404,
    E.NOT_A_BOT: 404,
    E.NOT_CREATOR: 403,
    E.ROOM_FULL: 409,
    E.ALREADY_STARTED: 409,
    E.ALREADY_IN_GAME: 409,
    E.NOT_ENOUGH_PLAYERS: 409,
    E.TEAM_NEEDS_FULL_TABLE: 409,
    E.INVALID_SEATS: 422,
    E.TOO_MANY_ROOMS: 429,
    E.HOUSE_RULE_UNKNOWN: 422,
    E.HOUSE_RULE_OUT_OF_BOUNDS: 422,
    E.HOUSE_RULE_NOT_IN_MODE: 422,
    E.HOUSE_RULES_INCONSISTENT: 422,
    E.NOT_TEAM_ROOM: 409,
    E.TEAM_FULL: 409,
    E.COLOUR_TAKEN: 409,
}


def make_limiter(settings: Settings, cluster: Cluster | None = None) -> RateLimiter:
    rules = {
        "join": Rule(settings.rate_join_burst, settings.rate_join_per_second),
        "create": Rule(settings.rate_create_burst, settings.rate_create_per_second),
        "chat": Rule(settings.rate_chat_burst, settings.rate_chat_per_second),
        "session": Rule(settings.rate_session_burst, settings.rate_session_per_second),
        "ws": Rule(settings.rate_ws_burst, settings.rate_ws_per_second),
        "magic": Rule(settings.rate_magic_burst, settings.rate_magic_per_second),
        "sync": Rule(settings.rate_sync_burst, settings.rate_sync_per_second),
        "replay": Rule(settings.rate_replay_burst, settings.rate_replay_per_second),
        "code": Rule(settings.rate_code_burst, settings.rate_code_per_second),
        # One rematch room per finished game and person (keyed by both): a second one is refused for a day.
        "rematch": Rule(1, 1 / 86400),
        "report": Rule(settings.rate_report_burst, settings.rate_report_per_second),
        "social": Rule(settings.rate_social_burst, settings.rate_social_per_second),
    }
    if cluster is not None:
        return SharedRateLimiter(rules, cluster.redis, address_factor=settings.rate_address_factor)
    return RateLimiter(rules, address_factor=settings.rate_address_factor)


def quick_play(settings: Settings, rooms: RoomService, cluster: Cluster | None) -> QuickPlay:
    """Quick play's queue: this process's memory, or with a cluster one queue in Redis for every process."""
    queue: QueueStore = (
        RedisQueue(cluster.redis, settings.quickplay_redis_prefix) if cluster is not None else MemoryQueue()
    )
    return QuickPlay(
        rooms, queue, wait_seconds=settings.quickplay_wait_seconds, tick_seconds=settings.quickplay_tick_seconds
    )


def mcp_connector(settings: Settings) -> McpEndpoint | None:
    """The /mcp endpoint for AI agents, unless the operator turned it off."""
    if not settings.mcp_enabled:
        return None
    # Loaded only when the endpoint is on: the MCP SDK takes over a second to import.
    from opolyx.server.agents.mcp_endpoint import McpEndpoint

    return McpEndpoint(settings.mcp_server_url or settings.public_url())


def create_app(settings: Settings | None = None, *, engine: Callable[[], EngineApi] | None = None) -> FastAPI:
    """Build the ASGI app. ``engine`` replaces the real rules engine (tests use a stand-in)."""
    settings = settings or Settings()
    engine_loader = engine or load_engine
    mcp_endpoint = mcp_connector(settings)
    metrics = ServerMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Here, not at import: uvicorn configures its loggers (each worker too) before the app starts.
        redact_access_log()
        store = await SqlStore.open(settings.resolved_database_url(), schema=settings.database_schema)
        cluster = (
            Cluster(settings.redis_url, settings.cluster_lease_seconds, metrics=metrics) if settings.redis_url else None
        )
        stack = contextlib.AsyncExitStack()
        handoff = (
            Handoff(cluster.node, metrics=metrics)
            if cluster is not None and settings.cluster_socket_handoff and handoff_supported()
            else None
        )
        try:
            if handoff is not None:
                await handoff.start()
            secret = resolve_secret(settings)
            signer = SessionSigner(secret, settings.session_max_age_days * 86400)
            limiter = make_limiter(settings, cluster)
            rooms = RoomService(
                HubContext(settings, store, engine_loader, secret=secret, metrics=metrics),
                cluster,
                on_frame=FrameHandler(settings, limiter, metrics),
            )
            quickplay = quick_play(settings, rooms, cluster)
            services = Services(
                settings,
                store,
                signer,
                limiter,
                rooms,
                replays=ReplayCache(engine_loader),
                metrics=metrics,
                handoff=handoff,
                quickplay=quickplay,
            )
            app.state.services = services
            await rooms.start_cluster()
            restored = await rooms.restore()
            rooms.start_checkpoints()
            quickplay.start()
            stack.push_async_callback(quickplay.close)
            # What exists now (modules, routes, restored games) lives as long as the process: leave it
            # out of the garbage collector's full passes, which stall every room while they scan.
            gc.collect()
            gc.freeze()
            # "ready" is said by the server once its port is bound (serving.ReadyServer).
            agents = mcp_endpoint.running() if mcp_endpoint is not None else contextlib.nullcontext()
            await stack.enter_async_context(agents)
            log.info(
                "opolyx: %d unfinished games restored%s", restored, f"; cluster node {cluster.node}" if cluster else ""
            )
            collections = FullCollections(settings.gc_full_seconds)
            stack.push_async_callback(collections.stop)
            collections.start()
            try:
                yield
            finally:
                await stack.aclose()
                await rooms.close()
        finally:
            if handoff is not None:
                await handoff.close()
            if cluster is not None:
                await cluster.close()
            await store.close()
            metrics.process_ended(os.getpid())

    app = FastAPI(
        title="opolyx",
        version=__version__,
        summary="Lobby and game server of opolyx. Games themselves run over the room WebSocket.",
        lifespan=lifespan,
    )

    # The client's scripts, styles and catalogs shrink to about a quarter; small answers and the
    # WebSocket (not HTTP) are left alone.
    if settings.gzip_minimum_size > 0:
        app.add_middleware(GZipMiddleware, minimum_size=settings.gzip_minimum_size)
    # Added last, so it is outermost: refusals never reach the app, and every answer gets its headers.
    app.add_middleware(
        GuardMiddleware,
        extra_origins=settings.extra_origins(),
        index_html=(settings.web_dir or WEB_DIR) / "index.html",
    )

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        body: dict[str, object] = {"code": exc.code, "message": exc.message}
        if exc.room is not None:
            body["room"] = exc.room
        return JSONResponse(body, status_code=exc.status)

    @app.exception_handler(RoomRefused)
    async def _room_refused(_request: Request, exc: RoomRefused) -> JSONResponse:
        body: dict[str, object] = {"code": exc.code, "message": exc.message}
        if exc.room is not None:
            body["room"] = exc.room
        return JSONResponse(body, status_code=REFUSAL_STATUS.get(exc.code, 409))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        code = text_code(str(first.get("type"))) or E.INVALID_REQUEST
        return JSONResponse({"code": code, "message": f"{where}: {first.get('msg', 'invalid request')}"}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        known = {400: E.INVALID_REQUEST, 404: E.NOT_FOUND}
        code = known.get(exc.status_code, f"http_{exc.status_code}")
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    app.include_router(session_router)
    app.include_router(lobby_router)
    app.include_router(quickplay_router)
    app.include_router(accounts_router)
    app.include_router(endgame_router)
    app.include_router(keys_router)
    app.include_router(ws_router)
    app.include_router(social_router)
    app.include_router(operator_router)
    if mcp_endpoint is not None:
        app.router.routes.append(Route(MCP_PATH, endpoint=mcp_endpoint))
    app.include_router(metrics_router)

    # The browser client reads the board tables and its message catalogs as they ship in the package.
    app.mount("/data/rules", StaticFiles(directory=WEB_DIR.parent / "rules" / "data"), name="rules-data")
    app.mount("/data/i18n", StaticFiles(directory=WEB_DIR.parent / "i18n" / "catalogs"), name="catalogs")
    web_dir = settings.web_dir or WEB_DIR
    if (web_dir / "index.html").is_file():
        app.mount("/", StaticFiles(directory=web_dir, html=True), name="web")
    else:

        @app.get("/", include_in_schema=False)
        async def _root() -> dict[str, str]:
            return {"name": "opolyx", "docs": "/docs", "lobby": "/api/rooms"}

    return app
