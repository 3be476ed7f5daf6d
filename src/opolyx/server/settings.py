"""Server configuration, read once from the environment (prefix ``OPOLYX_``).

One settings object is built at start-up and handed to :func:`opolyx.server.create_app`; nothing in the
server reads the environment on its own, so tests can run several differently configured apps side by
side in one process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything an operator may tune; docs/operating.md lists each field with its variable."""

    model_config = SettingsConfigDict(env_prefix="OPOLYX_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    # Empty means "an SQLite file in data_dir", so a person can play without setting anything up.
    database_url: str = ""
    # PostgreSQL only: the schema that holds the tables (tests use a fresh one per run).
    database_schema: str = ""
    # Empty means "generate one and keep it in data_dir/secret_key", so sessions survive restarts.
    secret_key: str = ""
    session_cookie: str = "opolyx_session"
    session_max_age_days: int = 365
    # The session cookie's Secure flag: None means "when the request came over https" (uvicorn's
    # --proxy-headers decide what counts behind a proxy); true/false force it.
    cookie_secure: bool | None = None
    cookie_samesite: Literal["lax", "strict"] = "lax"
    # Origins (scheme://host[:port], comma-separated) allowed to open sockets and send state-changing
    # requests besides the server's own (the Host it was reached by). "*" turns the check off.
    allowed_origins: str = ""

    # Bots wait this long (seconds, drawn uniformly) before acting; 0/0 makes them instant (tests).
    bot_delay_min: float = 0.8
    bot_delay_max: float = 2.2
    # Multiplies every game clock; tests shrink the 75 s turn to a fraction of a second.
    clock_scale: float = 1.0
    # Multiplies the XP pace floors (progression.json: a person's think time per decision, a played turn's
    # wall time). Leave it at 1: below 1 scripts farm faster; tests and benchmarks shrink it.
    xp_time_scale: float = 1.0
    # How often remaining clock time is written to the store, bounding what a crash can give back.
    clock_checkpoint_seconds: float = 2.0

    # HTTP answers at least this large are gzip-compressed when the client accepts it (0 turns it off).
    gzip_minimum_size: int = 1024

    chat_max_length: int = 300
    chat_history: int = 50
    max_frame_bytes: int = 16 * 1024
    # Frames larger than this are refused by the WebSocket layer itself (close code 1009).
    ws_hard_max_bytes: int = 1024 * 1024
    # permessage-deflate on room WebSockets: frames shrink to about a fifth, at a CPU cost per socket and
    # frame (each socket has its own context); docs/operating.md has the figures.
    ws_deflate: bool = True
    # A room socket that has sent nothing for this long gets a protocol ping, and is closed if no pong
    # comes back within as long again (a half-open connection); sockets that talk are not pinged.
    ws_ping_seconds: float = Field(default=20.0, gt=0)
    # Outgoing messages a slow client may lag behind before it is disconnected (it can reconnect).
    send_queue_limit: int = 1000

    # Rate limits: a burst allowance and a refill per second, per session and per address.
    rate_join_burst: int = 10
    rate_join_per_second: float = 0.5
    rate_create_burst: int = 5
    rate_create_per_second: float = 0.1
    rate_chat_burst: int = 8
    rate_chat_per_second: float = 1.0
    rate_session_burst: int = 20
    rate_session_per_second: float = 0.5
    rate_ws_burst: int = 60
    rate_ws_per_second: float = 20.0
    # Address buckets are this many times larger than session buckets (NAT, shared flats).
    rate_address_factor: float = 4.0

    # Optional: several server processes sharing one PostgreSQL serve the same rooms (cluster/node.py).
    redis_url: str = ""
    # A room's owner renews its lease about three times per this period; if it dies, another
    # process takes the room over within about this long.
    cluster_lease_seconds: float = 5.0
    # How often each process looks for running games nobody owns (their owner died) and adopts them.
    cluster_adopt_seconds: float = 5.0
    # How long a lobby call forwarded to a room's owner may take before it is retried elsewhere.
    cluster_call_timeout: float = 10.0
    # A room socket that reaches a process other than its room's owner, on the same machine, is handed
    # to the owner before its handshake is answered (handoff.py) instead of being relayed through Redis.
    cluster_socket_handoff: bool = True

    # Quick play ("Play now", play/quickplay.py): how long a person waits for others before bots fill the
    # table (the countdown they see), how often the queue forms tables, and (cluster) its Redis key prefix.
    quickplay_wait_seconds: float = Field(default=20.0, ge=0)
    quickplay_tick_seconds: float = Field(default=0.5, gt=0)
    quickplay_redis_prefix: str = "opolyx:quickplay:"

    # Sockets one session (and one address) may hold open at once, across rooms (per process).
    max_sockets_per_user: int = 8
    max_sockets_per_address: int = 64
    # Waiting rooms one address may have open at once, and how long an untouched waiting room lives.
    max_waiting_rooms_per_address: int = 10
    waiting_room_ttl_minutes: float = 30.0
    # `sync` answers a whole snapshot: a per-session allowance on top of the per-socket frame limit.
    rate_sync_burst: int = 10
    rate_sync_per_second: float = 1.0
    # Replays of finished games (anonymous): per address.
    rate_replay_burst: int = 10
    rate_replay_per_second: float = 0.5
    # Join-by-code attempts per session (the address gets rate_address_factor times more).
    rate_code_burst: int = 10
    rate_code_per_second: float = 0.05

    # HTTP connection hygiene (uvicorn): open connections at most, idle keep-alive, and how long a
    # client may take to send a request's head before the connection is dropped.
    http_limit_concurrency: int = 2000
    http_keep_alive_seconds: float = 5.0
    http_header_timeout_seconds: float = 10.0

    # Outgoing mail for sign-in links (docs/accounts.md). No host: links go to the server log instead.
    smtp_host: str = ""
    smtp_port: int = 587
    # "starttls" (upgrade a plain connection), "tls" (implicit TLS, usually port 465) or "none".
    smtp_security: str = "starttls"
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_timeout: float = 20.0
    mail_from: str = "opolyx <no-reply@localhost>"
    # The address people open the game at, for links in e-mails (empty: http://host:port/).
    site_url: str = ""
    magic_link_minutes: int = 15
    # Sign-in link requests: per address and per e-mail (a burst and a refill per second).
    rate_magic_burst: int = 3
    rate_magic_per_second: float = 1 / 120
    # The MCP connector for AI agents at /mcp (streamable HTTP, personal API keys); see docs/agents.md.
    mcp_enabled: bool = True
    # Where the connector's agents reach this server's public protocol; empty: this process's own address.
    mcp_server_url: str = ""
    # Who may read GET /metrics: these networks (CIDR, comma-separated; empty: none), or anyone sending
    # ``Authorization: Bearer <metrics_token>`` when a token is set. By default only this machine.
    metrics_allow: str = "127.0.0.1/32,::1/128"
    metrics_token: str = ""
    # Seconds between Python's full garbage collections, each a pause of every room (0: Python decides).
    gc_full_seconds: float = 300.0
    # Measuring only: write a cProfile of the serving thread's CPU time (not wall time, which a shared
    # machine inflates) to this path when ``opolyx serve`` stops; one process only.
    cpu_profile: str = ""

    # Moderation (docs/operating.md, "Moderation settings"). Operators: account ids or e-mail addresses,
    # comma-separated; only they see the operator page and its routes (everyone else gets 404).
    operators: str = ""
    # The chat's word filter: the lists applied (a player may switch it off for themselves); empty: none.
    chat_filter_languages: str = "en,de,pt,fr,es,zh"
    # Reports one person may file (a burst and a refill per second; the address gets the usual factor).
    rate_report_burst: int = 5
    rate_report_per_second: float = 1 / 120
    # Friend requests, mutes, blocks and invitations, per person.
    rate_social_burst: int = 30
    rate_social_per_second: float = 0.5
    # Chat lines kept with a report on each side of the reported one (its evidence).
    report_context_lines: int = 10
    # How long an invitation into a room is shown to the friend it was sent to.
    invite_minutes: float = 10.0
    # A person counts as online while one of their sessions reached the server this recently.
    online_minutes: float = 10.0

    web_dir: Path | None = Field(default=None)

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'opolyx.sqlite3').resolve()}"

    def operator_ids(self) -> frozenset[str]:
        """Who is an operator: account ids as given, e-mail addresses in lower case."""
        return frozenset(o.strip().lower() if "@" in o else o.strip() for o in self.operators.split(",") if o.strip())

    def extra_origins(self) -> frozenset[str]:
        return frozenset(o.strip().rstrip("/").lower() for o in self.allowed_origins.split(",") if o.strip())

    def site(self) -> str:
        """Base address for links sent by mail, ending in a slash."""
        base = self.site_url or self.public_url()
        return base if base.endswith("/") else base + "/"

    def public_url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"
