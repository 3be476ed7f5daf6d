"""One hub per room: the single door through which people, clocks and bots change a game.

Every change takes the room's lock and goes the same way: who you are → the game exists and runs →
it is your seat → the engine accepts → the action is stored → only then is it broadcast. Holding the
lock across the store write keeps the broadcast order equal to the stored order, so every watcher of a
room sees the same events in the same order, and a crash can only lose what nobody has seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

from opolyx import fairness
from opolyx.server import errors as E
from opolyx.server import progress
from opolyx.server.engine_api import JSON, EngineApi, GameLike
from opolyx.server.errors import ActionRefused, ApiError
from opolyx.server.http.metrics import ServerMetrics
from opolyx.server.http.transport import DIRECT_SEND
from opolyx.server.play.botplay import choose_bot_action, fallback_action
from opolyx.server.play.clocks import ClockBook
from opolyx.server.settings import Settings
from opolyx.server.wire import Fragment, dumps, fragment
from opolyx.storage import (
    FINISHED,
    RUNNING,
    WAITING,
    AlreadySeated,
    ChatRecord,
    RoomRecord,
    SeatRecord,
    SeatTaken,
    SeqConflict,
    Store,
    UserRecord,
)

log = logging.getLogger(__name__)

# How many recent events a snapshot carries (``history``), so a late or returning viewer sees a log.
HISTORY_LIMIT = 300
# The strength of the bot that takes over the seat of a person who resigns (rooms that ask for it).
TAKEOVER_STRENGTH = "normal"
_BOT_NAME = re.compile(r"^Bot (\d+) \((?:easy|normal|hard)\)$")


def out_seats(snapshot: JSON) -> set[int]:
    """Seats the engine reports as no longer playing (bankrupt, forfeited or resigned)."""
    return {player["seat"] for player in snapshot["players"] if player["out"]}


def pending_seats(snapshot: JSON) -> list[int]:
    """Seats the engine waits for, first come first: the clocked decision, then trade answers."""
    return list(dict.fromkeys(entry["seat"] for entry in snapshot["pending"]))


def bot_number(name: str) -> int | None:
    m = _BOT_NAME.match(name)
    return int(m.group(1)) if m else None


def game_changes(seen: JSON, view: JSON) -> JSON | None:
    """The members of the public game ``view`` whose values differ from ``seen``, the game a client last
    got; None when the two do not have the same members (the client then needs the whole game).

    Most actions change a few small members (``players``, ``phase``, ``pending``, ``dice``, ``seq``); the
    squares, three fifths of a Classic game's text, change with holdings alone (one action in eight in
    bot games), and the rules never. Sending only what changed makes an ``events`` frame less than half
    as long, on the wire and for each socket's compressor (``benchmarks/deflate.py``)."""
    if seen.keys() != view.keys():
        return None
    return {key: value for key, value in view.items() if seen[key] != value}


class Peer:
    """Whoever the hub sends frames to: a WebSocket here, or (cluster.py) a client of another process."""

    id: str
    user: UserRecord
    address: str
    closed: bool
    #: The client asked for ``game_changes`` in its ``events`` frames instead of the whole ``game``
    #: (``/ws/rooms/{id}?game=changes``, docs/protocol.md).
    wants_changes: bool = False
    #: The public game this client was last sent (the base of its next ``game_changes``); None: none yet.
    seen_view: JSON | None = None

    def send(self, payload: JSON) -> None:
        if not self.closed:
            self.send_text(dumps(payload))

    def send_text(self, text: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Connection(Peer):
    """One WebSocket; writes go through a queue so a slow client never blocks the room's lock."""

    def __init__(self, ws: WebSocket, user: UserRecord, address: str, queue_limit: int) -> None:
        self.ws = ws
        self.user = user
        self.address = address
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.queue_limit = queue_limit
        # uvicorn's synchronous send for this socket (transport.RoomSocketProtocol), used while nothing
        # waits in the queue, so frames stay in order; None under another server (tests' clients).
        self.direct: Callable[[str], bool] | None = ws.scope.get("extensions", {}).get(DIRECT_SEND)
        self.writing = False
        self.closed = False
        self.close_code = 1000
        self.id = secrets.token_hex(6)
        # The session record the socket was opened with (None: an API key); signing it out closes it.
        self.session_id: str | None = None

    def send_text(self, text: str) -> None:
        """Send an already serialised frame (a broadcast serialises once per seat, not per socket): at once
        while nothing waits in the queue, else behind what does."""
        if self.closed:
            return
        if self.direct is not None and not self.writing and self.queue.empty() and self.direct(text):
            return
        if self.queue.qsize() >= self.queue_limit:
            # Too far behind: drop it; the client reconnects and gets a fresh snapshot.
            log.warning("connection %s lags behind, closing it", self.id)
            self.close()
            return
        self.queue.put_nowait(text)

    def close(self, code: int = 1000) -> None:
        """Close once everything queued is sent; ``code`` is the close code the client sees."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.queue.put_nowait(None)

    async def writer(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                self.writing = True
                await self.ws.send_text(text)
                self.writing = False
        except Exception:  # the socket went away; the reader side notices and cleans up
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self.ws.close(code=self.close_code)


@dataclass
class HubContext:
    settings: Settings
    store: Store
    engine: Callable[[], EngineApi]
    metrics: ServerMetrics = field(default_factory=ServerMetrics)
    # The server's secret: the fair-dice nonce of each game is derived from it (opolyx.fairness).
    secret: str = ""

    def seed_nonce(self, room_id: str) -> str:
        return fairness.derive_nonce(self.secret, room_id)


class RoomHub:
    def __init__(self, room: RoomRecord, ctx: HubContext) -> None:
        self.room = room
        self.ctx = ctx
        self.lock = asyncio.Lock()
        self.game: GameLike | None = None
        self.log: list[tuple[int | None, JSON]] = []
        self.snap: JSON | None = None
        # What clients see of the game: the engine's public snapshot, with the names of seats that a
        # bot took over (computed once per change, shared by every frame).
        self.view: JSON | None = None
        # Kept as encoded JSON: hundreds of rooms times 300 events as dicts were most of the objects the
        # garbage collector's full passes scan (and stall every room for) at a few thousand players.
        self.history: deque[Fragment] = deque(maxlen=HISTORY_LIMIT)
        self.conns: set[Peer] = set()
        self.clocks = ClockBook(ctx.settings.clock_scale)
        self.chat_log: deque[JSON] = deque(maxlen=ctx.settings.chat_history)
        self.rng = random.Random()
        self._timer: asyncio.TimerHandle | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._bot_stuck: tuple[int, int] | None = None
        self._known_out: set[int] = {s.seat for s in room.seats if s.out}
        # XP, level-ups and card drops credited when the game finished (progress.py), per seat.
        self.progression: list[JSON] | None = None
        # Private rooms: people without a seat who proved they know the code (or held a seat), so may watch.
        self.admitted: set[str] = set()
        # Last time someone joined, left or connected: idle waiting rooms expire (rooms.py).
        self.touched = time.monotonic()
        self.closed = False

    # --- loading -------------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        return len(self.log)

    async def load(self) -> None:
        """Rebuild the game from the stored log (after a restart, or to show a finished game)."""
        room = self.room
        self.chat_log.clear()
        for m in await self.ctx.store.recent_chat(room.id, self.ctx.settings.chat_history):
            self.chat_log.append(_chat_frame(m))
        if room.status not in (RUNNING, FINISHED) or room.seed is None:
            return
        records = await self.ctx.store.load_actions(room.id)
        self.log = [(r.seat, r.action) for r in records]
        if room.status == FINISHED:
            self.progression = [a.to_json() for a in await self.ctx.store.awards_of_game(room.id)]
        self.game = self._replay_with_history(self.log)
        self.snap = self.game.snapshot()
        self.view = self._public(self.snap)
        if room.status == RUNNING:
            self.clocks.restore(room.clocks or {})
            self.clocks.sync(self.snap)
            await self._after_change()

    def _replay(self, log: list[tuple[int | None, JSON]]) -> GameLike:
        room = self.room
        assert room.seed is not None
        return self.ctx.engine().replay(
            room.seed, room.mode, len(room.seats), [[s, a] for s, a in log], seat_info=room.seat_info
        )

    def _replay_with_history(self, log: list[tuple[int | None, JSON]]) -> GameLike:
        """Replay action by action, rebuilding the recent events (they follow from the log, so they
        are never stored) and the takeover notices (from the seats' ``took_over_at``)."""
        room = self.room
        assert room.seed is not None
        game = self.ctx.engine().new_game(room.mode, len(room.seats), room.seed, seat_info=room.seat_info)
        notices: dict[int, list[JSON]] = {}
        for seat in room.seats:
            if seat.took_over_at is not None:
                notices.setdefault(seat.took_over_at, []).append(self._takeover_event(seat))
        self.history.clear()
        self._remember(0, [self._seed_event(committed=True)])
        self._remember(0, game.start_events)
        self._remember(0, notices.pop(0, []))
        for seq, (seat_no, action) in enumerate(log, start=1):
            self._remember(seq, game.apply(seat_no, action))
            self._remember(seq, notices.pop(seq, []))
        if game.is_over:
            self._remember(len(log), [self._seed_event(committed=False)])
        return game

    def _seed_event(self, *, committed: bool) -> JSON:
        """Fair dice: the seed's commitment (the game's first event), or at the end the seed itself."""
        assert self.room.seed is not None
        nonce = self.ctx.seed_nonce(self.room.id)
        make = fairness.committed_event if committed else fairness.revealed_event
        return make(self.room.seed, nonce)

    def _remember(self, seq: int, events: list[JSON]) -> None:
        for event in events:
            self.history.append(fragment({"seq": seq, "event": event}))

    # --- views ---------------------------------------------------------------------------------------

    def _public(self, snap: JSON | None) -> JSON | None:
        """The snapshot clients see: seats a bot took over carry the bot's name, owned squares their
        current rent (asked of the engine, so players read it off the board)."""
        if snap is None:
            return None
        rents = self.game.current_rents() if self.game is not None else {}
        if rents:
            squares = [dict(sq, rent=rents[sq["index"]]) if sq["index"] in rents else sq for sq in snap["squares"]]
            snap = dict(snap, squares=squares)
        swapped = {s.seat: s for s in self.room.seats if s.took_over_at is not None}
        if not swapped:
            return snap
        players: list[JSON] = []
        for player in snap["players"]:
            seat = swapped.get(player["seat"])
            players.append(dict(player, name=seat.name, bot=True) if seat is not None else player)
        return dict(snap, players=players)

    def _bot_view(self, seat: SeatRecord) -> JSON | None:
        if seat.bot is None:
            return None
        replaces = None
        info = self.room.seat_info or []
        if seat.took_over_at is not None and seat.seat < len(info):
            replaces = info[seat.seat].get("name")
        return {"strength": seat.bot, "number": bot_number(seat.name), "replaces": replaces}

    def _takeover_event(self, seat: SeatRecord) -> JSON:
        bot = self._bot_view(seat) or {}
        return {
            "type": "bot_took_over",
            "seat": seat.seat,
            "name": bot.get("replaces"),
            "bot": {"strength": seat.bot, "number": bot.get("number")},
        }

    def may_watch(self, user_id: str | None) -> bool:
        """Public rooms are open to all; a private room only to its seats, its creator and those who
        entered its code (an id alone is not enough: ids get shared in links and logs)."""
        room = self.room
        if room.public:
            return True
        if user_id is None:
            return False
        return room.seat_of(user_id) is not None or user_id == room.creator_id or user_id in self.admitted

    def enter(self, user: UserRecord, code: str) -> None:
        """(Lock not held.) Checked before ``join``: the code of a private room admits its holder."""
        if self.room.code is None or not secrets.compare_digest(self.room.code.encode(), code.encode()):
            raise ApiError(404, E.ROOM_NOT_FOUND, "no room with that code")
        self.admitted.add(user.id)

    def connected_users(self) -> set[str]:
        return {c.user.id for c in self.conns if not c.closed}

    def room_view(self, viewer: str | None) -> JSON:
        room = self.room
        online = self.connected_users()
        # A seat is an agent's when it was taken through an API key, or while a key plays it now.
        agents = {c.user.id for c in self.conns if c.user.agent and not c.closed}
        seated = room.seat_of(viewer) is not None if viewer else False
        players = [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": "bot" if s.is_bot else "human",
                "strength": s.bot,
                "bot": self._bot_view(s),
                "connected": True if s.is_bot else s.user_id in online,
                "out": s.out,
                "agent": s.agent or s.user_id in agents,
                "you": viewer is not None and s.user_id == viewer,
            }
            for s in room.seats
        ]
        seat_users = {s.user_id for s in room.seats if s.user_id}
        return {
            "id": room.id,
            "mode": room.mode,
            "seats": room.seat_count,
            "public": room.public,
            "bots_replace_leavers": room.bots_replace_leavers,
            "status": room.status,
            "creator": room.creator_id,
            "code": room.code if (seated or viewer == room.creator_id) else None,
            "players": players,
            "spectators": len({c.user.id for c in self.conns if c.user.id not in seat_users}),
            "created_at": room.created_at.isoformat(),
            "ws": f"/ws/rooms/{room.id}",
        }

    def _legal(self, seat: int | None) -> list[JSON]:
        if seat is None or self.game is None or self.room.status != RUNNING or self.game.is_over:
            return []
        try:
            return self.game.legal_actions(seat)
        except Exception:
            log.exception("legal_actions failed for seat %s in room %s", seat, self.room.id)
            return []

    def snapshot_for(self, conn: Peer, ref: Any = None) -> JSON:
        seat = self.room.seat_of(conn.user.id)
        seat_no = seat.seat if seat else None
        conn.seen_view = self.view
        return {
            "type": "snapshot",
            "room": self.room_view(conn.user.id),
            "you": {"user": conn.user.id, "seat": seat_no, "spectator": seat is None},
            "game": self.view,
            "seq": self.seq,
            "legal": self._legal(seat_no),
            "deadlines": self.clocks.public() if self.room.status == RUNNING else [],
            "chat": list(self.chat_log),
            "history": list(self.history),
            "progression": self.progression,
            "ref": ref,
        }

    def broadcast(self, payload: JSON) -> None:
        for conn in list(self.conns):
            conn.send(payload)

    def broadcast_room(self) -> None:
        for conn in list(self.conns):
            conn.send({"type": "room", "room": self.room_view(conn.user.id)})

    def broadcast_snapshots(self) -> None:
        for conn in list(self.conns):
            conn.send(self.snapshot_for(conn))

    # --- connections ---------------------------------------------------------------------------------

    async def attach(self, conn: Peer) -> bool:
        """Connect a socket; False (and nothing sent) if its person may not watch this room."""
        if not self.may_watch(conn.user.id):
            return False
        async with self.lock:
            self.touched = time.monotonic()
            first = conn.user.id not in self.connected_users()
            self.conns.add(conn)
            conn.send(self.snapshot_for(conn))
            seat = self.room.seat_of(conn.user.id)
            if first and seat is not None:
                self.broadcast({"type": "presence", "seat": seat.seat, "name": seat.name, "connected": True})
            if conn.user.agent and seat is not None and not seat.agent:
                # A person's seat now played through their API key: the table sees an agent there.
                self.broadcast_room()
        return True

    async def detach(self, conn: Peer) -> None:
        async with self.lock:
            self.conns.discard(conn)
            seat = self.room.seat_of(conn.user.id)
            if seat is not None and conn.user.id not in self.connected_users():
                # The seat is held and its clocks keep running; the table just sees it is away.
                self.broadcast({"type": "presence", "seat": seat.seat, "name": seat.name, "connected": False})
            if conn.user.agent and seat is not None and not seat.agent:
                self.broadcast_room()

    async def send_snapshot(self, conn: Peer, ref: Any = None) -> None:
        async with self.lock:
            conn.send(self.snapshot_for(conn, ref))

    # --- the door ------------------------------------------------------------------------------------

    async def submit(
        self,
        conn: Peer,
        action: JSON,
        *,
        ref: Any = None,
        seq: int | None = None,
        seat: int | None = None,
    ) -> None:
        """A person's intent. Raises ActionRefused (nothing changed) or applies, stores and broadcasts."""
        async with self.lock:
            mine = self.room.seat_of(conn.user.id)  # who you are
            if mine is None:
                raise ActionRefused(E.NOT_SEATED, "spectators cannot act; join a seat to play")
            if self.game is None or self.room.status != RUNNING or self.game.is_over:
                raise ActionRefused(E.GAME_NOT_RUNNING, f"the game is not running ({self.room.status})")
            if seat is not None and seat != mine.seat:
                raise ActionRefused(E.WRONG_SEAT, f"you sit in seat {mine.seat}, not {seat}")
            if seq is not None and seq != self.seq:
                raise ActionRefused(E.STALE_STATE, f"the game is at seq {self.seq}, you saw {seq}")
            if action.get("type") == "resign" and self.room.bots_replace_leavers and not mine.out:
                await self._take_over(mine, origin=conn, ref=ref)
                return
            await self._apply(mine.seat, action, origin=conn, ref=ref)

    async def _take_over(self, seat: SeatRecord, *, origin: Peer | None = None, ref: Any = None) -> None:
        """(Lock held.) A bot of normal strength plays on the seat of a person who resigns; the person
        is freed at once (they may join another game) and watches this one from now on."""
        numbers = [bot_number(s.name) or 0 for s in self.room.seats if s.is_bot]
        name = f"Bot {max(numbers, default=0) + 1} ({TAKEOVER_STRENGTH})"
        self.room = await self.ctx.store.replace_with_bot(
            self.room.id, seat.seat, bot=TAKEOVER_STRENGTH, name=name, at_seq=self.seq
        )
        if seat.user_id is not None:
            self.admitted.add(seat.user_id)  # the person who left may watch on, even in a private room
        bot_seat = next(s for s in self.room.seats if s.seat == seat.seat)
        event = self._takeover_event(bot_seat)
        self._remember(self.seq, [event])
        self.view = self._public(self.snap)
        self.broadcast({"type": "notice", "seq": self.seq, "event": event})
        # Everyone gets the new seat list and names; the person who left now watches (no seat).
        for conn in list(self.conns):
            conn.send(self.snapshot_for(conn, ref if conn is origin else None))
        self._bot_stuck = None
        self._arm()

    async def _apply(
        self, seat: int | None, action: JSON, *, origin: Peer | None = None, ref: Any = None
    ) -> None:
        game = self.game
        assert game is not None
        try:
            events = game.apply(seat, action)
        except self.ctx.engine().IllegalAction as exc:
            raise ActionRefused(E.ILLEGAL_ACTION, str(exc) or "illegal", reason=exc.code) from exc
        except Exception as exc:
            # The engine must leave the game unchanged on refusal, but a crash may not; rebuild.
            log.exception("engine failed on %r by seat %s in room %s", action, seat, self.room.id)
            self._rebuild()
            raise ActionRefused(E.INTERNAL, "the game could not apply this action") from exc
        seq = self.seq + 1
        snap = game.snapshot()
        if snap["seq"] != seq:
            log.warning("engine seq %s != server seq %s in room %s", snap["seq"], seq, self.room.id)
        self.clocks.sync(snap)
        try:
            # Clocks are not written here: the periodic checkpoint (one transaction for every room)
            # bounds what a crash can give back, without a second write per action.
            await self.ctx.store.append_action(self.room.id, seq, seat, action)
        except Exception as exc:
            log.exception("could not store action %s of room %s", seq, self.room.id)
            self._rebuild()
            code = E.CONFLICT if isinstance(exc, SeqConflict) else E.INTERNAL
            raise ActionRefused(code, "the action could not be stored; nothing changed") from exc
        self.log.append((seat, action))
        self.ctx.metrics.actions.inc()
        self.snap = snap
        self._remember(seq, events)
        room_changed = await self._persist_status()
        self.view = self._public(snap)
        over = bool(game.is_over)
        base = {
            "type": "events",
            "seq": seq,
            "seat": seat,
            "action": action,
            "events": events,
            "pending": snap["pending"],
            "over": over,
            "result": snap["result"],
            "deadlines": self.clocks.public() if not over else [],
            "progression": self.progression if over else None,
        }
        # The common part is serialised once per action; then the whole game or, for a client that asked for
        # them, the game's changes since what it was last sent; legal actions once per seat; only the origin's
        # copy differs (its ref).
        common = dumps(base)[:-1]
        view = self.view
        # The game part by the identity of its base (None: the whole game), worked out once per distinct base,
        # in practice one for the room; each entry keeps its base alive, so no other can take its id meanwhile.
        # An entry: its base, then the part's own key and text (a base whose changes cannot be sent shares
        # the whole game's, encoded once for every socket that needs it).
        parts: dict[int, tuple[JSON | None, int, str]] = {}

        def game_part(seen: JSON | None) -> tuple[int, str]:
            key = id(seen)
            entry = parts.get(key)
            if entry is None:
                changes = game_changes(seen, view) if seen is not None and view is not None else None
                if changes is not None:
                    entry = (seen, key, f'"game_changes":{dumps(changes)}')
                elif seen is not None:
                    entry = (seen, *game_part(None))
                else:
                    entry = (None, key, f'"game":{dumps(view)}')
                parts[key] = entry
            return entry[1], entry[2]

        legal_texts: dict[int | None, str] = {}
        texts: dict[tuple[int, int | None], str] = {}
        for conn in list(self.conns):
            mine = self.room.seat_of(conn.user.id)
            s = mine.seat if mine else None
            key, part = game_part(conn.seen_view if conn.wants_changes else None)
            conn.seen_view = view
            legal = legal_texts.get(s)
            if legal is None:
                legal = legal_texts[s] = dumps(self._legal(s))
            if conn is origin:
                conn.send_text(f'{common},{part},"legal":{legal},"ref":{dumps(ref)}}}')
                continue
            text = texts.get((key, s))
            if text is None:
                text = texts[key, s] = f'{common},{part},"legal":{legal},"ref":null}}'
            conn.send_text(text)
        if room_changed:
            self.broadcast_room()
        if over:
            revealed = self._seed_event(committed=False)
            self._remember(seq, [revealed])
            self.broadcast({"type": "notice", "seq": seq, "event": revealed})
        self._arm()

    def _rebuild(self) -> None:
        self.game = self._replay(self.log)
        self.snap = self.game.snapshot()
        self.view = self._public(self.snap)
        self.clocks.sync(self.snap)

    async def _persist_status(self) -> bool:
        """Bring the store's view (who is out, is it over) in line with the game, before anyone is told."""
        game, snap = self.game, self.snap
        if game is None or snap is None:
            return False
        store = self.ctx.store
        newly_out = sorted(out_seats(snap) - self._known_out)
        if newly_out:
            await store.mark_out(self.room.id, newly_out)
            self._known_out.update(newly_out)
        if game.is_over and self.room.status == RUNNING:
            earned = await progress.credits(store, self.ctx.engine(), self.room, self.log, snap)
            awards = await store.finish_game(self.room.id, snap["result"], earned)
            self.progression = [a.to_json() for a in awards]
            self.clocks.clear()
            self._cancel_timer()
        if newly_out or game.is_over:
            await self._reload_room()
            return True
        return False

    def _arm(self) -> None:
        if self.room.status == RUNNING:
            self._arm_timer()
            self._arm_bots()

    async def _after_change(self) -> None:
        if await self._persist_status():
            self.broadcast_room()
        self._arm()

    async def _reload_room(self) -> None:
        room = await self.ctx.store.get_room(self.room.id)
        if room is not None:
            self.room = room
            self.view = self._public(self.snap)

    # --- clocks --------------------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm_timer(self) -> None:
        self._cancel_timer()
        if self.closed:
            return
        clock = self.clocks.next_due()
        if clock is None:
            return
        delay = max(0.0, clock.deadline - self.clocks.now())
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._spawn, self._on_timer, clock.key)

    def _spawn(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(fn(*args))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_timer(self, key: str) -> None:
        async with self.lock:
            if self.game is None or self.room.status != RUNNING or self.closed:
                return
            clock = self.clocks.running.get(key)
            if clock is None:
                self._arm_timer()
                return
            if clock.deadline > self.clocks.now() + 0.001:
                self._arm_timer()
                return
            try:
                await self._apply(None, dict(clock.action))
            except ActionRefused as exc:
                # The engine says nothing is due (it moved on in the meantime): forget this clock.
                log.warning("timeout %s refused in room %s: %s", key, self.room.id, exc.message)
                self.clocks.kill(key)
                self._arm_timer()
            except Exception:
                log.exception("timeout %s failed in room %s", key, self.room.id)

    def clocks_to_checkpoint(self) -> JSON | None:
        """The clocks to write at the next checkpoint, or None when there is nothing running."""
        if self.room.status == RUNNING and self.clocks.running and not self.closed:
            return self.clocks.to_store()
        return None

    async def checkpoint(self) -> None:
        """Write the time left on each clock, so a restart resumes about where a crash stopped it."""
        async with self.lock:
            if self.room.status == RUNNING and self.clocks.running and not self.closed:
                await self.ctx.store.save_clocks(self.room.id, self.clocks.to_store())

    # --- bots ----------------------------------------------------------------------------------------

    def _bots_to_act(self) -> list[SeatRecord]:
        snap = self.snap
        if snap is None or self.game is None or self.game.is_over:
            return []
        by_seat = {s.seat: s for s in self.room.seats}
        return [by_seat[s] for s in pending_seats(snap) if s in by_seat and by_seat[s].is_bot and not by_seat[s].out]

    def _arm_bots(self) -> None:
        if self.closed or (self._bot_task is not None and not self._bot_task.done()):
            return
        if not self._bots_to_act():
            return
        self._bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    async def _bot_loop(self) -> None:
        settings = self.ctx.settings
        while not self.closed:
            delay = self.rng.uniform(settings.bot_delay_min, max(settings.bot_delay_min, settings.bot_delay_max))
            await asyncio.sleep(delay)
            async with self.lock:
                if self.game is None or self.room.status != RUNNING:
                    return
                acted = False
                for bot in self._bots_to_act():
                    if self._bot_stuck == (self.seq, bot.seat):
                        continue
                    if await self._bot_move(bot):
                        acted = True
                        break
                if not acted:
                    return

    async def _bot_move(self, bot: SeatRecord) -> bool:
        game = self.game
        assert game is not None
        # In a worker thread so a thinking bot never stalls other rooms; the lock we hold keeps
        # everyone else from touching this game meanwhile.
        action = await asyncio.to_thread(choose_bot_action, game, bot.seat, bot.bot or "normal", self.rng)
        for attempt in range(2):
            if action is None:
                break
            try:
                await self._apply(bot.seat, action)
                return True
            except ActionRefused as exc:
                log.warning("bot seat %s action %r refused: %s", bot.seat, action, exc.message)
                if attempt == 0:
                    action = fallback_action(self._legal(bot.seat), self.rng)
        # Nothing worked: wait for the state to change (or the clock to fire) before trying again.
        self._bot_stuck = (self.seq, bot.seat)
        return False

    # --- lobby ---------------------------------------------------------------------------------------

    async def join(self, user: UserRecord) -> None:
        if not self.may_watch(user.id):
            raise ApiError(404, E.ROOM_NOT_FOUND, f"no room {self.room.id}")
        async with self.lock:
            self.touched = time.monotonic()
            room = self.room
            if room.status != WAITING:
                raise ApiError(409, E.ALREADY_STARTED, "the game has already started")
            if room.seat_of(user.id) is not None:
                return
            taken = {s.seat for s in room.seats}
            free = [i for i in range(room.seat_count) if i not in taken]
            if not free:
                raise ApiError(409, E.ROOM_FULL, "every seat is taken")
            try:
                self.room = await self.ctx.store.take_seat(
                    room.id, free[0], user_id=user.id, bot=None, name=user.nickname, agent=user.agent
                )
            except AlreadySeated as exc:
                raise already_in_game(exc.room_id) from exc
            except SeatTaken as exc:
                raise ApiError(409, E.ROOM_FULL, "that seat was just taken; try again") from exc
            self.broadcast_room()

    async def add_bot(self, user: UserRecord, strength: str) -> None:
        async with self.lock:
            room = self.room
            self._creator_waiting(user)
            taken = {s.seat for s in room.seats}
            free = [i for i in range(room.seat_count) if i not in taken]
            if not free:
                raise ApiError(409, E.ROOM_FULL, "every seat is taken")
            bots = sum(1 for s in room.seats if s.is_bot)
            name = f"Bot {bots + 1} ({strength})"
            try:
                self.room = await self.ctx.store.take_seat(room.id, free[0], user_id=None, bot=strength, name=name)
            except SeatTaken as exc:
                raise ApiError(409, E.ROOM_FULL, "that seat was just taken; try again") from exc
            self.broadcast_room()

    async def remove_bot(self, user: UserRecord, seat: int) -> None:
        async with self.lock:
            self._creator_waiting(user)
            target = next((s for s in self.room.seats if s.seat == seat), None)
            if target is None or not target.is_bot:
                raise ApiError(404, E.NOT_A_BOT, f"seat {seat} holds no bot")
            self.room = await self.ctx.store.free_seat(self.room.id, seat)
            self.broadcast_room()

    def _creator_waiting(self, user: UserRecord) -> None:
        if self.room.creator_id != user.id:
            raise ApiError(403, E.NOT_CREATOR, "only the room's creator may do this")
        if self.room.status != WAITING:
            raise ApiError(409, E.ALREADY_STARTED, "the game has already started")

    async def leave(self, user: UserRecord) -> None:
        """Leave a waiting room, or resign from a running game (the seat is then out, or played on by
        a bot in rooms created with ``bots_replace_leavers``)."""
        if self.room.status == RUNNING:
            seat = self.room.seat_of(user.id)
            if seat is None:
                raise ApiError(404, E.NOT_IN_ROOM, "you hold no seat in this room")
            if seat.out:
                return
            async with self.lock:
                if self.game is None or self.game.is_over:
                    return
                seat = self.room.seat_of(user.id)
                if seat is None or seat.out:
                    return
                if self.room.bots_replace_leavers:
                    await self._take_over(seat)
                    return
                try:
                    await self._apply(seat.seat, {"type": "resign"})
                except ActionRefused as exc:
                    raise ApiError(409, exc.code, exc.message) from exc
                return
        async with self.lock:
            self.touched = time.monotonic()
            room = self.room
            seat = room.seat_of(user.id)
            if room.status != WAITING or seat is None:
                raise ApiError(404, E.NOT_IN_ROOM, "you hold no seat in this room")
            self.room = await self.ctx.store.free_seat(room.id, seat.seat)
            people = [s for s in self.room.seats if s.user_id]
            if not people:
                await self.ctx.store.close_room(room.id)
                await self._reload_room()
            elif room.creator_id == user.id:
                # The room lives on with the longest-seated person in charge.
                people.sort(key=lambda s: s.seat)
                self.room = await self.ctx.store.set_creator(room.id, str(people[0].user_id))
            self.broadcast_room()

    async def start(self, user: UserRecord) -> None:
        async with self.lock:
            room = self.room
            self._creator_waiting(user)
            seats = sorted(room.seats, key=lambda s: s.seat)
            if len(seats) < 2:
                raise ApiError(409, E.NOT_ENOUGH_PLAYERS, "at least two seats must be filled")
            if room.mode == "team" and len(seats) != room.seat_count:
                raise ApiError(409, E.TEAM_NEEDS_FULL_TABLE, "team games start with every seat filled")
            # Empty seats are dropped; the engine numbers seats 0..n-1 and draws who begins.
            renumbered = [SeatRecord(i, s.user_id, s.bot, s.name, agent=s.agent) for i, s in enumerate(seats)]
            seat_info = await progress.seat_info(self.ctx.store, room.mode, renumbered)
            seed = secrets.randbits(62)
            game = self.ctx.engine().new_game(room.mode, len(renumbered), seed, seat_info=seat_info)
            self.room = await self.ctx.store.start_game(
                room.id, seed=seed, seats=renumbered, seat_info=seat_info
            )
            self.game = game
            self.log = []
            self.history.clear()
            self._remember(0, [self._seed_event(committed=True)])
            self._remember(0, game.start_events)
            self.snap = game.snapshot()
            self.view = self._public(self.snap)
            self.clocks.sync(self.snap)
            await self.ctx.store.save_clocks(room.id, self.clocks.to_store())
            self.broadcast_snapshots()
            await self._after_change()

    # --- chat ----------------------------------------------------------------------------------------

    async def chat(self, conn: Peer, text: str) -> None:
        text = text.strip()
        if not text:
            raise ActionRefused(E.CHAT_EMPTY, "empty message")
        limit = self.ctx.settings.chat_max_length
        if len(text) > limit:
            raise ActionRefused(E.CHAT_TOO_LONG, f"chat messages are limited to {limit} characters")
        async with self.lock:
            seat = self.room.seat_of(conn.user.id)
            message = ChatRecord(
                conn.user.nickname, seat.seat if seat else None, seat is None, text, round(time.time(), 3), conn.user.id
            )
            # Stored before anyone sees it, like an action: what the table saw survives a restart.
            try:
                await self.ctx.store.add_chat(self.room.id, message)
            except Exception as exc:
                log.exception("could not store a chat message in room %s", self.room.id)
                raise ActionRefused(E.INTERNAL, "the message could not be stored; try again") from exc
            frame = _chat_frame(message)
            self.chat_log.append(frame)
            self.broadcast(frame)

    # --- shutdown ------------------------------------------------------------------------------------

    async def close(self) -> None:
        self.closed = True
        self._cancel_timer()
        tasks = list(self._tasks)
        if self._bot_task is not None:
            tasks.append(self._bot_task)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for conn in list(self.conns):
            conn.close()


def _chat_frame(m: ChatRecord) -> JSON:
    return {"type": "chat", "name": m.name, "seat": m.seat, "spectator": m.spectator, "text": m.text, "at": m.at}


def already_in_game(room_id: str | None) -> ApiError:
    return ApiError(
        409,
        E.ALREADY_IN_GAME,
        "you already sit in an unfinished game; finish it, resign or leave it first",
        room=room_id,
    )
