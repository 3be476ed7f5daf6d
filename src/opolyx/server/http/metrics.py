"""What an operator's Prometheus scrapes from ``GET /metrics``: rooms, sockets, actions, latency, leases.

Each app has its own registry (two apps in one process, as in the tests, never mix their figures).
When ``opolyx serve --workers N`` runs several processes on one port, a scrape reaches any one of
them, so every process writes its figures to files in ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's
multiprocess mode, set up by the CLI before the workers start) and whichever answers sums them all.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections import Counter as Tally
from collections.abc import Iterable

from fastapi import APIRouter, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prom_multiprocess

from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.storage import FINISHED, RUNNING, WAITING

# Where multiprocess mode keeps its files; prometheus-client reads it when it is first imported.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Action latency buckets (seconds): fine below the 100 ms a player starts to notice, coarse above.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

STATUSES = (WAITING, RUNNING, FINISHED)


def multiprocess_mode() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


class ServerMetrics:
    """The server's metrics. Gauges are summed over live processes in multiprocess mode."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        # The process's own CPU, memory, open files and garbage collection (single-process mode).
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            r.register(collector)
        self.rooms = Gauge(
            "opolyx_rooms",
            "Rooms whose hub this server runs, by status (refreshed every second and at each scrape).",
            ["status"],
            registry=r,
            multiprocess_mode="livesum",
        )
        self.connections = Gauge(
            "opolyx_players_connected",
            "Open room WebSockets (players and spectators) held by this server.",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.actions = Counter(
            "opolyx_actions",
            "Game actions applied and stored (people, bots and clock timeouts); rate() gives actions/s.",
            registry=r,
        )
        self.action_latency = Histogram(
            "opolyx_action_latency_seconds",
            "From a person's action frame reaching its room to its events being queued for every socket "
            "(waiting for the room, the engine and the database commit included).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.lease_moves = Counter(
            "opolyx_lease_moves",
            "Room leases (cluster mode) this server took, gave up, or lost to another process.",
            ["direction"],
            registry=r,
        )
        for direction in ("taken", "released", "lost"):
            self.lease_moves.labels(direction)
        self.handoffs = Counter(
            "opolyx_socket_handoffs",
            "Room sockets (cluster mode, processes on one machine) this server passed to the process owning "
            "their room, kept because that process did not take them, adopted from another process, or was "
            "offered but declined (handoff.py).",
            ["result"],
            registry=r,
        )
        for result in ("passed", "kept", "adopted", "declined"):
            self.handoffs.labels(result)

    def count_rooms(self, statuses: Iterable[str]) -> None:
        """Set the rooms gauge from the status of every room hub this process runs."""
        tally = Tally(statuses)
        for status in STATUSES:
            self.rooms.labels(status).set(tally.get(status, 0))

    def lease(self, direction: str) -> None:
        self.lease_moves.labels(direction).inc()

    def handoff(self, result: str) -> None:
        self.handoffs.labels(result).inc()

    def exposition(self) -> bytes:
        """The text a scrape receives: this process's registry, or the sum of every worker's files."""
        if multiprocess_mode():
            registry = CollectorRegistry()
            prom_multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        return generate_latest(self.registry)

    @staticmethod
    def process_ended(pid: int) -> None:
        """Drop a stopped worker's live gauges so the sums only count running processes."""
        if multiprocess_mode():
            prom_multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def scrape_allowed(address: str, authorization: str, allow: str, token: str) -> bool:
    """Whether a request may read /metrics: from an allowed network (``allow``: comma-separated CIDR
    blocks or addresses), or bearing the metrics token."""
    bearer = authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""
    if token and secrets.compare_digest(bearer.encode(), token.encode()):
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for network in (n.strip() for n in allow.split(",")):
        if not network:
            continue
        try:
            if ip in ipaddress.ip_network(network, strict=False):
                return True
        except ValueError:
            continue
    return False


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Prometheus text format, for the addresses in ``OPOLYX_METRICS_ALLOW`` or the metrics token."""
    services = request.app.state.services
    settings = services.settings
    address = request.client.host if request.client else ""
    if not scrape_allowed(address, request.headers.get("authorization", ""), settings.metrics_allow,
                          settings.metrics_token):
        raise ApiError(
            401,
            E.NOT_AUTHENTICATED,
            "metrics are readable from the networks in OPOLYX_METRICS_ALLOW or with OPOLYX_METRICS_TOKEN",
        )
    services.rooms.refresh_metrics()
    return Response(services.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
