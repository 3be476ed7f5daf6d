"""One agent at the table: the MCP tools' logic, on top of the reference client (``opolyx.client``).

Everything an agent does goes through the public protocol with its own credentials, so it plays under
the same clocks, rate limits and visibility as a person in the same seat; nothing here reaches into
the server. The answers are small JSON-ready dicts meant to be read by a model.

A model thinks for seconds per call, so this layer also keeps up with the table for it (issue 47):

- **events since the last call**: every state carries the events since the agent's previous state (a
  cursor per agent), its own timeouts and the answers to its offers always among them;
- **deadlines**: each decision's time left and wall-clock end, and a late action answered with
  ``clock_expired`` and the deadline it missed instead of the engine's bare ``wrong_phase``;
- **a standing maximum bid**: the rules allow only minimum raises within a 10 s clock, so the agent can
  name the most it will pay and this layer bids the minimum for it each time the auction comes round
  (and passes once the minimum is above it);
- ``act`` with an optional ``seq``: ``stale_state`` when the game moved since the state it decided on;
- a trade offer may be built from the ``propose_trade`` template's own keys, and a jackpot decision is
  one parameterised action instead of 41.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from datetime import UTC, datetime

from opolyx.client import Client, OpolyxError, RoomSocket
from opolyx.engine.vocabulary import Mode
from opolyx.jsontypes import JSON
from opolyx.mcp.summary import summarize
from opolyx.protocol.models import RoomOut

# wait_for_turn never blocks longer than this, whatever the model asks for.
MAX_WAIT_SECONDS = 60.0
# At most this many events in one answer; beyond it the oldest that do not concern the caller are left out.
MAX_EVENTS = 40
# Events of the table's bookkeeping that a player never needs (the fair-dice commitment: see /api/games).
QUIET_EVENTS = frozenset({"seed_committed", "seed_revealed"})
# Events that mean one of the seat's own clocks ran out.
TIMEOUT_EVENTS = frozenset({"turn_timed_out", "pay_step_timed_out"})
# Event fields that name a seat the event concerns (a trade's "from"/"to" too; elsewhere "to" is a square).
SEAT_FIELDS = ("seat", "owner", "debtor", "winner", "leader", "creditor")
CLOCK_EXPIRED = "clock_expired"
STALE_STATE = "stale_state"
# Keys of the propose_trade template that are description, not part of an offer.
TEMPLATE_KEYS = ("template", "fairness_percent")
JACKPOT_HINT = "1 to 3 different numbers from 1 to 6, e.g. [2, 5]"


def room_brief(room: RoomOut) -> JSON:
    """A room in a few fields: enough to choose one to join."""
    return {
        "id": room.id,
        "mode": room.mode,
        "status": room.status,
        "seats": room.seats,
        "players": [
            {"seat": p.seat, "name": p.name, "kind": "agent" if p.agent else p.kind} for p in room.players
        ],
        "code": room.code,
    }


def compact_event(seq: int, event: JSON) -> str:
    """``"<seq> <type> key=value ..."``: an event in a line, without empty fields."""
    parts = [f"{seq} {event.get('type')}"]
    for key, value in event.items():
        if key == "type" or value is None or value is False or value == [] or value == {}:
            continue
        parts.append(f"{key}={json.dumps(value, separators=(',', ':'))}")
    return " ".join(parts)


def offer_from(action: JSON) -> JSON:
    """A ``propose_trade`` as the wire takes it, from what an agent built (possibly from the template's own
    keys): ``template``/``fairness_percent`` dropped, ``cash_max`` read as no cash, a ``take`` keyed by
    seat reduced to the chosen seat's side, and a one-seat ``to`` list to that seat."""
    out = {k: v for k, v in action.items() if k not in TEMPLATE_KEYS}
    to = out.get("to")
    if isinstance(to, list) and len(to) == 1:
        to = out["to"] = to[0]
    take = out.get("take")
    if isinstance(take, dict) and not ({"cash", "squares"} & set(take)) and take:
        side = take.get(str(to)) if to is not None else None
        if side is None and len(take) == 1:
            ((only, side),) = take.items()
            if to is None and str(only).isdigit():
                out["to"] = int(only)
        out["take"] = side if side is not None else {}
    for key in ("give", "take"):
        side = out.get(key)
        if isinstance(side, dict):
            out[key] = {k: v for k, v in side.items() if k in ("cash", "squares")}
    return out


def _iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class AgentPlayer:
    """An identity (API key or guest session) and at most one room socket at a time."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.table: RoomSocket | None = None
        self.room_id: str | None = None
        # One tool call at a time per agent: a model's parallel calls must not interleave on one seat.
        self.lock = asyncio.Lock()
        self._reset_view()
        self._bidder: asyncio.Task[None] | None = None
        # The last game seen over before leaving it, so leave_room after the end still answers.
        self._finished: str | None = None

    def _reset_view(self) -> None:
        # Events delivered so far: (seq, how many of that seq's events).
        self.cursor: tuple[int, int] = (-1, 0)
        # The seq and the deadlines of the last state this agent was shown (what it decides on).
        self.seen_seq: int | None = None
        self.seen_deadlines: list[JSON] = []
        self.seen_at = 0.0
        # Trade offers this seat made, to pick out their answers.
        self.my_trades: set[int] = set()
        # The standing maximum bid: (auction id, or None for the next auction; amount), and the seq a bid
        # or pass was last sent at.
        self.max_bid: tuple[int | None, int] | None = None
        # The maximum for every auction (set_max_bid's every_auction), where no auction's own applies.
        self.max_bid_every: int | None = None
        self._sent_at_seq = -1
        self.events_delivered = 0
        self.events_left_out = 0

    async def close(self) -> None:
        await self._stand_up()
        await self.client.close()

    # --- rooms ---------------------------------------------------------------------------------------

    async def list_rooms(self) -> JSON:
        listing = await self.client.rooms()
        return {
            "waiting": [room_brief(r) for r in listing.waiting],
            "running": [room_brief(r) for r in listing.running],
        }

    async def create_room(
        self, mode: Mode, seats: int, bots: int, bot_strength: str, public: bool, start: bool
    ) -> JSON:
        if not 0 <= bots < seats:
            raise OpolyxError("invalid_request", f"bots must be between 0 and {seats - 1} for {seats} seats")
        room = await self.client.create_room(mode, seats, public=public)
        for _ in range(bots):
            room = await self.client.add_bot(room.id, bot_strength)
        await self._sit(room.id)
        if start:
            await self.client.start(room.id)
            await self._until_started()
        return self.state()

    async def join_room(self, code: str | None, room_id: str | None) -> JSON:
        if code:
            room = await self.client.join_code(code)
        elif room_id:
            room = await self.client.join(room_id)
        else:
            raise OpolyxError("invalid_request", "give the room's join code or its id")
        await self._sit(room.id)
        return self.state()

    async def start_game(self) -> JSON:
        table = self._table()
        assert self.room_id is not None
        await self.client.start(self.room_id)
        await self._until_started()
        return self.state(table)

    async def leave_room(self) -> JSON:
        if self.table is not None and self.table.over and self.room_id is not None:
            # The game is over: the seat is already free; just stand up from the table.
            room_id = self.room_id
            await self._stand_up()
            return {"left": room_id, "status": "finished"}
        if self.table is None and self._finished is not None:
            return {"left": self._finished, "status": "finished"}
        self._table()
        assert self.room_id is not None
        room = await self.client.leave(self.room_id)
        await self._stand_up()
        return {"left": room.id, "status": room.status}

    async def _sit(self, room_id: str) -> None:
        if self.room_id != room_id:
            await self._stand_up()
            table = self.client.socket(room_id)
            # Enough of the log that a long wait never drops events before the agent reads them.
            table.log = type(table.log)(maxlen=2000)
            await table.open()
            self.table, self.room_id = table, room_id
            self._finished = None
            self._reset_view()
            self._bidder = asyncio.get_running_loop().create_task(self._bid_for_me(table))

    async def _stand_up(self) -> None:
        if self._bidder is not None:
            self._bidder.cancel()
            with contextlib.suppress(BaseException):
                await self._bidder
            self._bidder = None
        if self.table is not None:
            if self.table.over:
                self._finished = self.room_id
            with contextlib.suppress(Exception):
                await self.table.close()
        self.table, self.room_id = None, None

    async def _until_started(self) -> None:
        table = self._table()
        await table.wait_until(lambda: table.started, 10)

    def _table(self) -> RoomSocket:
        if self.table is None:
            raise OpolyxError("not_in_room", "you are at no table: create a room or join one first")
        if self.table.error is not None:
            raise self.table.error
        return self.table

    # --- the game ------------------------------------------------------------------------------------

    def state(self, table: RoomSocket | None = None, brief: bool = False) -> JSON:
        table = table or self._table()
        bid = self._standing_bid(table)
        out: JSON = {
            "summary": summarize(table.room, table.you, table.game, table.deadlines, bid, brief=brief),
            "room": table.room["id"] if table.room else None,
            "your_seat": table.seat,
            "your_turn": table.my_turn(),
            "started": table.started,
            "over": table.over,
            "seq": table.seq,
            "events": self._new_events(table),
            "legal_actions": self.legal(table),
        }
        deadline = self._deadline(table)
        if deadline is not None:
            out["your_deadline"] = deadline
        if table.over:
            out["result"] = table.result
        self.seen_seq, self.seen_deadlines, self.seen_at = table.seq, list(table.deadlines), time.time()
        return out

    def legal(self, table: RoomSocket) -> list[JSON]:
        """The legal actions, with the jackpot's bets as one parameterised entry."""
        out: list[JSON] = []
        bets = False
        for action in table.legal:
            if action.get("type") == "jackpot_bet":
                if not bets:
                    out.append({"type": "jackpot_bet", "numbers": JACKPOT_HINT})
                    bets = True
                continue
            out.append(action)
        return out

    def _deadline(self, table: RoomSocket) -> JSON | None:
        """The clock of this seat's own decision (not its trade answers): seconds left and its end."""
        seat = table.seat
        mine = [d for d in table.deadlines if d.get("seat") == seat and d.get("kind") != "trade"]
        if seat is None or not mine or table.over:
            return None
        first = min(mine, key=lambda d: float(d.get("remaining", 0)))
        decision = next((e["decision"] for e in table.pending if e.get("seat") == seat and "trade" not in e), None)
        return {
            "decision": decision,
            "clock": first.get("kind"),
            "seconds_left": round(float(first.get("remaining", 0)), 1),
            "ends_at": _iso(float(first["ends_at"])) if "ends_at" in first else None,
        }

    def _concerns_me(self, event: JSON, seat: int | None) -> bool:
        if seat is None:
            return False
        if event.get("type") == "trade_proposed" and event.get("from") == seat:
            return True
        kind = str(event.get("type", ""))
        if kind.startswith("trade_"):
            trade = event.get("trade", event.get("id"))
            if (isinstance(trade, int) and trade in self.my_trades) or seat in (event.get("from"), event.get("to")):
                return True
        return any(event.get(k) == seat for k in SEAT_FIELDS)

    def _new_events(self, table: RoomSocket) -> list[str]:
        """The events since this agent's last state, as lines; the cursor moves past them."""
        cseq, ccount = self.cursor
        fresh: list[tuple[int, JSON]] = []
        counts: dict[int, int] = {}
        for entry in table.log:
            seq = int(entry["seq"])
            k = counts.get(seq, 0)
            counts[seq] = k + 1
            if seq > cseq or (seq == cseq and k >= ccount):
                fresh.append((seq, entry["event"]))
        if fresh:
            last = fresh[-1][0]
            self.cursor = (last, counts[last])
        seat = table.seat
        for _, event in fresh:
            if event.get("type") == "trade_proposed" and event.get("from") == seat and isinstance(event.get("id"), int):
                self.my_trades.add(event["id"])
        fresh = [(s, e) for s, e in fresh if e.get("type") not in QUIET_EVENTS]
        left_out = 0
        if len(fresh) > MAX_EVENTS:
            # Keep what concerns this seat (its timeouts, answers to its offers, its rent...) and the newest.
            keep = {i for i, (_, e) in enumerate(fresh) if self._concerns_me(e, seat)}
            for i in range(len(fresh) - 1, -1, -1):
                if len(keep) >= MAX_EVENTS:
                    break
                keep.add(i)
            left_out = len(fresh) - len(keep)
            fresh = [x for i, x in enumerate(fresh) if i in keep]
        lines = [compact_event(s, e) for s, e in fresh]
        if left_out:
            lines.insert(0, f"({left_out} older events of other seats left out)")
        self.events_delivered += len(fresh)
        self.events_left_out += left_out
        return lines

    async def act(self, action: JSON, seq: int | None = None) -> JSON:
        table = self._table()
        action = self._wire_action(action)
        basis = self.seen_seq if seq is None else seq
        if seq is not None and seq != table.seq:
            raise self._late(table, basis) or OpolyxError(
                STALE_STATE, f"the game is at seq {table.seq}, you decided on {seq}: look again (get_state)"
            )
        try:
            await table.request({"type": "action", "action": action, "seq": table.seq if seq is None else seq})
        except OpolyxError as exc:
            if exc.code in ("illegal_action", STALE_STATE, CLOCK_EXPIRED):
                # Wait for the frames that say why (a timeout may be on its way to this socket).
                await asyncio.sleep(0)
                late = self._late(table, basis)
                if late is not None:
                    raise late from exc
            raise
        return self.state(table, brief=True)

    def _wire_action(self, action: JSON) -> JSON:
        if action.get("type") == "propose_trade":
            return offer_from(action)
        return action

    def _late(self, table: RoomSocket, basis: int | None) -> OpolyxError | None:
        """``clock_expired`` when one of this seat's own clocks ran out after the state the agent decided on,
        with the deadline it had (from that state) and what the timeout did."""
        seat = table.seat
        if seat is None or basis is None:
            return None
        for entry in table.log:
            event = entry["event"]
            if int(entry["seq"]) <= basis or event.get("seat") != seat:
                continue
            kind = event.get("type")
            auction = kind == "auction_passed" and event.get("reason") == "timeout"
            if kind in TIMEOUT_EVENTS or auction:
                clock = "auction" if auction else "pay" if kind == "pay_step_timed_out" else "turn"
                had = [d for d in self.seen_deadlines if d.get("seat") == seat and d.get("kind") != "trade"]
                data: JSON = {"clock": clock, "timed_out_at_seq": int(entry["seq"]), "now_seq": table.seq}
                text = f"your {clock} clock ran out before your action arrived"
                if had:
                    first = min(had, key=lambda d: float(d.get("remaining", 0)))
                    ends = float(first.get("ends_at", self.seen_at + float(first.get("remaining", 0))))
                    data.update(deadline=_iso(ends), seconds_allowed=first.get("seconds"),
                                late_by_seconds=round(max(0.0, time.time() - ends), 1))
                    text += f" (deadline {data['deadline']}, {data['late_by_seconds']} s ago)"
                text += "; the timeout played your safe default. Look again (get_state)"
                if auction:
                    text += "; set_max_bid bids for you within the clock"
                return OpolyxError(CLOCK_EXPIRED, text, data=data)
        return None

    async def wait_for_turn(self, timeout_seconds: float) -> JSON:
        table = self._table()
        limit = max(0.0, min(float(timeout_seconds), MAX_WAIT_SECONDS))
        done = await table.wait_until(lambda: self._needs_me(table) or table.over or table.error is not None, limit)
        state = self.state(table)
        state["timed_out"] = not done
        return state

    def _needs_me(self, table: RoomSocket) -> bool:
        """The seat must decide, and no standing bid decides for it."""
        return table.my_turn() and not (self._standing_bid(table) is not None and self._auction_turn(table))

    # --- the standing maximum bid ----------------------------------------------------------------

    async def set_max_bid(self, amount: int, every_auction: bool = False) -> JSON:
        table = self._table()
        auction = (table.game or {}).get("auction")
        if every_auction:
            # A standing policy: the same maximum in every auction from now on, until cleared.
            self.max_bid_every = amount if amount > 0 else None
            self._sent_at_seq = -1
            await table.wake()
            await asyncio.sleep(0.05)
            return self.state(table)
        if amount <= 0:
            self.max_bid = None
            return self.state(table)
        # No auction yet (e.g. just before declining a purchase): the maximum waits for the next one.
        self.max_bid = (int(auction["id"]) if auction else None, int(amount))
        self._sent_at_seq = -1
        await table.wake()  # the bidder acts at once if it is this seat's bid now
        await asyncio.sleep(0.05)  # and its bid is usually back before the state is read
        return self.state(table)

    def _standing_bid(self, table: RoomSocket) -> int | None:
        """The maximum for the running auction (one set for "the next auction" binds to it here)."""
        auction = (table.game or {}).get("auction")
        if not auction:
            return None
        if self.max_bid is not None:
            bound, amount = self.max_bid
            if bound is None:
                self.max_bid = (int(auction["id"]), amount)
                return amount
            if auction.get("id") == bound:
                return amount
        return self.max_bid_every

    def _auction_turn(self, table: RoomSocket) -> bool:
        auction = (table.game or {}).get("auction")
        return auction is not None and auction.get("bidder") == table.seat and table.my_turn()

    async def _bid_for_me(self, table: RoomSocket) -> None:
        """Bid the minimum (or pass, once it is above the maximum) whenever the auction comes round."""

        def due() -> bool:
            return (
                self._standing_bid(table) is not None
                and self._auction_turn(table)
                and self._sent_at_seq != table.seq
            )

        while True:
            await table.wait_until(due, 3600)
            if not due():
                continue
            limit = self._standing_bid(table)
            bid = next((a for a in table.legal if a.get("type") == "bid"), None)
            self._sent_at_seq = table.seq
            action: JSON = (
                {"type": "bid", "amount": bid["amount"]}
                if bid is not None and limit is not None and int(bid.get("amount", 0)) <= limit
                else {"type": "pass"}
            )
            with contextlib.suppress(OpolyxError):
                await table.request({"type": "action", "action": action, "seq": table.seq})

    # --- chat ----------------------------------------------------------------------------------------

    def read_chat(self, since: int) -> JSON:
        table = self._table()
        messages = [
            {"number": m["number"], "name": m["name"], "seat": m["seat"], "text": m["text"]}
            for m in table.chat
            if m["number"] > since
        ]
        return {"messages": messages, "last": table.chat_count}

    async def send_chat(self, text: str) -> JSON:
        table = self._table()
        await table.say(text)
        return {"sent": True}
