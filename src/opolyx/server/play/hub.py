"""One hub per room: the single door through which people, clocks and bots change a game.

Every change takes the room's lock and goes the same way: who you are → the game exists and runs →
it is your seat → the engine accepts → the action is stored → only then is it broadcast. Holding the
lock across the store write keeps the broadcast order equal to the stored order, so every watcher of a
room sees the same events in the same order, and a crash can only lose what nobody has seen.

The hub holds the room's state and that door; each of its other jobs is a part of its own, handed the hub
when it is made: the lobby's operations on the room (:mod:`.seating`), the clocks' timer
(:mod:`.timeouts`), the bot seats (:mod:`.bot_seats`), the chat (:mod:`.chat`), seats going out and the
game ending (:mod:`.finishing`), the sockets (:mod:`.peers`) and the encoding of each action for every
socket (:mod:`.fanout`); what the table and the lobby see of it is worked out in :mod:`.views`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import Any

from opolyx import fairness
from opolyx.jsontypes import JSON
from opolyx.progression.play import SERVER
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ActionRefused
from opolyx.rules import house
from opolyx.server.engine_api import GameLike
from opolyx.server.play.bot_seats import BotSeats
from opolyx.server.play.chat import TableChat
from opolyx.server.play.clocks import ClockBook
from opolyx.server.play.context import HubContext
from opolyx.server.play.fanout import send_events
from opolyx.server.play.finishing import Finishing
from opolyx.server.play.measuring import PlayMeter, actor_of
from opolyx.server.play.peers import Peer
from opolyx.server.play.seating import Seating
from opolyx.server.play.timeouts import Timeouts
from opolyx.server.play.views import bot_number, connected_users, public_game, room_view, takeover_event
from opolyx.server.wire import Fragment, fragment
from opolyx.storage import FINISHED, RUNNING, RoomRecord, SeatRecord, SeqConflict

log = logging.getLogger(__name__)

# How many recent events a snapshot carries (``history``), so a late or returning viewer sees a log.
HISTORY_LIMIT = 300
# The strength of the bot that takes over the seat of a person who resigns (rooms that ask for it).
TAKEOVER_STRENGTH = "normal"
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
        # XP, level-ups and card drops credited when the game finished (xp_credit.py), per seat.
        self.progression: list[JSON] | None = None
        # Private rooms: people without a seat who proved they know the code (or held a seat), so may watch.
        self.admitted: set[str] = set()
        # Seat colours people picked before the start, by user id (seat_colours.py).
        self.colours: dict[str, int] = {}
        # Last time someone joined, left or connected: idle waiting rooms expire (rooms.py).
        self.touched = time.monotonic()
        self.closed = False
        # The hub's jobs besides the door.
        self.seats = Seating(self)
        self.timeouts = Timeouts(self)
        self.bots = BotSeats(self)
        self.messages = TableChat(self)
        self.finishing = Finishing(self)
        # Who acts and how fast, stored with each action (XP pays for turns people really played).
        self.meter = PlayMeter()

    # --- loading -------------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        return len(self.log)

    async def load(self) -> None:
        """Rebuild the game from the stored log (after a restart, or to show a finished game)."""
        room = self.room
        await self.messages.load()
        if room.status not in (RUNNING, FINISHED) or room.seed is None:
            return
        records = await self.ctx.store.load_actions(room.id)
        self.log = [(r.seat, r.action) for r in records]
        await self.meter.load(self.ctx.store, room.id)
        if room.status == FINISHED:
            await self.finishing.load()
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
            room.seed, room.mode, len(room.seats), [[s, a] for s, a in log], seat_info=room.seat_info,
            **house.engine_options(room.house_rules),
        )

    def _replay_with_history(self, log: list[tuple[int | None, JSON]]) -> GameLike:
        """Replay action by action, rebuilding the recent events (they follow from the log, so they
        are never stored) and the takeover notices (from the seats' ``took_over_at``)."""
        room = self.room
        assert room.seed is not None
        game = self.ctx.engine().new_game(
            room.mode, len(room.seats), room.seed, seat_info=room.seat_info, **house.engine_options(room.house_rules)
        )
        notices: dict[int, list[JSON]] = {}
        for seat in room.seats:
            if seat.took_over_at is not None:
                notices.setdefault(seat.took_over_at, []).append(takeover_event(self.room, seat))
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

    def may_watch(self, user_id: str | None) -> bool:
        """Public rooms are open to all; a private room only to its seats, its creator and those who
        entered its code (an id alone is not enough: ids get shared in links and logs)."""
        room = self.room
        if room.public:
            return True
        if user_id is None:
            return False
        return room.seat_of(user_id) is not None or user_id == room.creator_id or user_id in self.admitted

    def connected_users(self) -> set[str]:
        return connected_users(self.conns)

    def room_view(self, viewer: str | None) -> JSON:
        return room_view(self.room, self.conns, viewer, self.colours)

    def _public(self, snap: JSON | None) -> JSON | None:
        return public_game(self.room, self.game, snap)

    def legal(self, seat: int | None) -> list[JSON]:
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
            "legal": self.legal(seat_no),
            "deadlines": self.clocks.public() if self.room.status == RUNNING else [],
            "chat": self.messages.for_reader(conn.user.id),
            "history": list(self.history),
            "progression": self.progression,
            "fairness": self._seed_event(committed=True) if self.room.seed is not None else None,
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
        await self.messages.prepare(conn.user.id)
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
                raise self._late(mine.seat, seq) or ActionRefused(
                    E.STALE_STATE, f"the game is at seq {self.seq}, you saw {seq}"
                )
            if action.get("type") == "resign" and self.room.bots_replace_leavers and not mine.out:
                await self.take_over(mine, origin=conn, ref=ref)
                return
            await self.meter.note(self.ctx.store, self.ctx.secret, self.room.id, mine.seat, conn)
            await self.apply(mine.seat, action, origin=conn, ref=ref)

    async def more_time(self, conn: Peer, ref: Any = None) -> None:
        """A player asks for more time in their own pay step: its clock grows by the mode's pay-step time,
        once per debt, and every socket gets the new deadlines (docs/accessibility.md). Raises ActionRefused
        when the asker has no pay step running or already had their extra time."""
        async with self.lock:
            mine = self.room.seat_of(conn.user.id)
            if mine is None:
                raise ActionRefused(E.NOT_SEATED, "spectators have no clock to lengthen")
            if self.game is None or self.room.status != RUNNING or self.game.is_over:
                raise ActionRefused(E.GAME_NOT_RUNNING, f"the game is not running ({self.room.status})")
            seconds = float(self.snap["rules"]["pay_step_seconds"]) if self.snap else 0.0
            if seconds <= 0 or self.clocks.lengthen_pay(mine.seat, seconds) is None:
                raise ActionRefused(
                    E.ILLEGAL_ACTION, "no pay step of yours is running, or it was lengthened already",
                    reason="more_time",
                )
            for peer in list(self.conns):
                peer.send(self.snapshot_for(peer, ref if peer is conn else None))
            self._arm()

    def _late(self, seat: int, seen: int) -> ActionRefused | None:
        """``clock_expired`` when what moved the game since ``seen`` includes a timeout of the seat's own
        decision: the sender decided in time to read, not to act (issue 47)."""
        if not 0 <= seen < self.seq:
            return None
        for at, (by, action) in enumerate(self.log[seen:], start=seen + 1):
            if by is None and action.get("type") == "timeout" and action.get("seat") == seat:
                clock = str(action.get("clock", ""))
                return ActionRefused(
                    E.CLOCK_EXPIRED,
                    f"your {clock.split(':')[0] or 'decision'} clock ran out (at seq {at}) before this action "
                    f"arrived; the timeout played it. The game is at seq {self.seq}",
                    data={"clock": clock, "timed_out_at_seq": at, "now_seq": self.seq},
                )
        return None

    async def take_over(self, seat: SeatRecord, *, origin: Peer | None = None, ref: Any = None) -> None:
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
        event = takeover_event(self.room, bot_seat)
        self._remember(self.seq, [event])
        self.view = self._public(self.snap)
        self.broadcast({"type": "notice", "seq": self.seq, "event": event})
        # Everyone gets the new seat list and names; the person who left now watches (no seat).
        for conn in list(self.conns):
            conn.send(self.snapshot_for(conn, ref if conn is origin else None))
        self.bots.unstick()
        self._arm()

    async def apply(
        self, seat: int | None, action: JSON, *, origin: Peer | None = None, ref: Any = None, actor: str = SERVER
    ) -> None:
        """(Lock held.) Apply an action the engine is asked to accept, store it, then tell every socket.
        ``actor`` says who acted when no socket did (a bot, the clock, the server)."""
        elapsed_ms = self.meter.elapsed_ms()
        game = self.game
        assert game is not None
        try:
            events = game.apply(seat, action)
        except self.ctx.engine().IllegalAction as exc:
            raise ActionRefused(
                E.ILLEGAL_ACTION, str(exc) or "illegal", reason=exc.code, data=getattr(exc, "data", None)
            ) from exc
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
            await self.ctx.store.append_action(
                self.room.id, seq, seat, action, actor=actor_of(origin, actor), elapsed_ms=elapsed_ms
            )
        except Exception as exc:
            log.exception("could not store action %s of room %s", seq, self.room.id)
            self._rebuild()
            code = E.CONFLICT if isinstance(exc, SeqConflict) else E.INTERNAL
            raise ActionRefused(code, "the action could not be stored; nothing changed") from exc
        self.log.append((seat, action))
        self.ctx.metrics.actions.inc()
        self.snap = snap
        self._remember(seq, events)
        room_changed = await self.finishing.persist_status()
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
        send_events(self.conns, base, self.view, seat_of=self._seat_no, legal=self.legal, origin=origin, ref=ref)
        self.meter.changed()
        if room_changed:
            self.broadcast_room()
        if over:
            revealed = self._seed_event(committed=False)
            self._remember(seq, [revealed])
            self.broadcast({"type": "notice", "seq": seq, "event": revealed})
        self._arm()

    def _seat_no(self, user_id: str) -> int | None:
        mine = self.room.seat_of(user_id)
        return mine.seat if mine else None

    def _rebuild(self) -> None:
        self.game = self._replay(self.log)
        self.snap = self.game.snapshot()
        self.view = self._public(self.snap)
        self.clocks.sync(self.snap)

    async def begin(self, game: GameLike) -> None:
        """(Lock held.) The game the room just started (its seats and seed already stored): tell the table."""
        self.game = game
        self.log = []
        self.history.clear()
        self._remember(0, [self._seed_event(committed=True)])
        self._remember(0, game.start_events)
        self.snap = game.snapshot()
        self.view = self._public(self.snap)
        self.clocks.sync(self.snap)
        await self.ctx.store.save_clocks(self.room.id, self.clocks.to_store())
        self.broadcast_snapshots()
        self.meter.changed()
        await self._after_change()

    def _arm(self) -> None:
        if self.room.status == RUNNING:
            self.timeouts.arm()
            self.bots.arm()

    async def _after_change(self) -> None:
        if await self.finishing.persist_status():
            self.broadcast_room()
        self._arm()

    async def reload_room(self) -> None:
        room = await self.ctx.store.get_room(self.room.id)
        if room is not None:
            self.room = room
            self.view = self._public(self.snap)

    def stop_clocks(self) -> None:
        """The game is over: no clock runs any more."""
        self.clocks.clear()
        self.timeouts.cancel()

    # --- the other jobs, as the room service and the socket ask for them --------------------------

    async def chat(self, conn: Peer, text: str) -> None:
        await self.messages.post(conn, text)

    def clocks_to_checkpoint(self) -> JSON | None:
        return self.timeouts.to_checkpoint()

    async def checkpoint(self) -> None:
        await self.timeouts.checkpoint()

    # --- shutdown ------------------------------------------------------------------------------------

    async def close(self) -> None:
        self.closed = True
        tasks: list[asyncio.Task[Any]] = [*self.timeouts.stop(), *self.bots.stop()]
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for conn in list(self.conns):
            conn.close()
