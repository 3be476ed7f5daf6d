"""The table as a few lines of plain text a language model can read at a glance.

Built only from what the seat's socket received (the public snapshot, the room, the recent events), so
an agent never learns more than a person in the same seat. Square names and prices come from the
board tables (rules are data), not from the snapshot.
"""

from __future__ import annotations

import json
from functools import cache

from opolyx.jsontypes import JSON
from opolyx.rules import load_board
from opolyx.rules.model import Board

# How many of the latest events the summary repeats.
RECENT_EVENTS = 8


@cache
def _board(name: str) -> Board:
    return load_board(name)


def _square(board: Board, index: int | None) -> str:
    if index is None or not 0 <= index < len(board.squares):
        return "?"
    return f"{index} {board.squares[index].name}"


def _seconds(deadlines: list[JSON], seat: int | None) -> str:
    left = [d["remaining"] for d in deadlines if d.get("seat") == seat and isinstance(d.get("remaining"), int | float)]
    return f", {min(left):.0f} s left" if left else ""


def _holdings(board: Board, game: JSON, seat: int) -> str:
    owned = []
    for sq in game.get("squares", []):
        if sq.get("owner") != seat:
            continue
        note = ""
        if sq.get("level"):
            note += f" level {sq['level']}"
        if sq.get("mortgaged"):
            note += " mortgaged"
        owned.append(_square(board, sq["index"]) + note)
    return "; ".join(owned) if owned else "nothing"


def _kind(seat: JSON) -> str:
    return "bot" if seat["kind"] == "bot" else "agent" if seat.get("agent") else "person"


def summarize(room: JSON | None, you: JSON | None, game: JSON | None, deadlines: list[JSON], log: list[JSON]) -> str:
    """A compact, readable account of the room and the game from one seat's point of view."""
    if room is None:
        return "Not in a room. List rooms, create one or join one by its code."
    seat = you.get("seat") if you else None
    lines = [
        f"Room {room['id']}: {room['mode']}, {room['status']}"
        + (f", join code {room['code']}" if room.get("code") else "")
        + (f". You are seat {seat}." if seat is not None else ". You are watching (no seat).")
    ]
    if game is None:
        people = ", ".join(f"seat {p['seat']} {p['name']} ({_kind(p)})" for p in room["players"])
        lines.append(f"Waiting to start ({len(room['players'])} of {room['seats']} seats filled): {people}.")
        return "\n".join(lines)
    board = _board(str(game.get("board", "classic")))
    kinds = {p["seat"]: _kind(p) for p in room["players"]}
    lines.append(f"Round {game['round']}, phase {game['phase']}, seq {game['seq']}.")
    lines.append("Players:")
    for p in game["players"]:
        who = "you" if p["seat"] == seat else kinds.get(p["seat"], "person")
        state = f"out ({p['out_reason']})" if p["out"] else f"cash {p['cash']}, on {_square(board, p['position'])}"
        if p.get("in_jail"):
            state += ", in jail"
        lines.append(
            f"  seat {p['seat']} {p['name']} [{who}]: {state}; net worth {p['net_worth']}; "
            f"owns {_holdings(board, game, p['seat'])}"
        )
    if game.get("over"):
        result = game.get("result") or {}
        lines.append(f"Game over ({result.get('reason')}): winner seat {result.get('winner')}.")
        for place in result.get("placements", []):
            lines.append(f"  place {place['place']}: seat {place['seat']} (net worth {place['net_worth']})")
        return "\n".join(lines)
    waiting = [f"seat {e['seat']} to {e['decision']}{_seconds(deadlines, e['seat'])}" for e in game["pending"]]
    lines.append("Waiting for: " + ("; ".join(waiting) if waiting else "nobody") + ".")
    offer = game.get("offer")
    if offer is not None:
        sq = board.squares[offer] if isinstance(offer, int) else None
        lines.append(f"For sale: {_square(board, offer)}" + (f" at {sq.price}" if sq else "") + ".")
    auction = game.get("auction")
    if auction:
        lines.append(
            f"Auction of {_square(board, auction['square'])}: highest bid {auction['bid']} by seat "
            f"{auction['leader']}, next bidder seat {auction['bidder']}, minimum bid {auction['minimum']}."
        )
    for debt in game.get("debts") or []:
        lines.append(f"Debt: seat {debt['debtor']} owes {debt['amount']} ({debt['reason']}).")
    for trade in game.get("trades") or []:
        lines.append(
            f"Trade {trade['id']}: seat {trade['from']} offers {json.dumps(trade['give'])} "
            f"to seat {trade['to']} for {json.dumps(trade['take'])}."
        )
    recent = [json.dumps(entry["event"], separators=(",", ":")) for entry in log[-RECENT_EVENTS:]]
    if recent:
        lines.append("Recent events (oldest first):")
        lines.extend(f"  {text}" for text in recent)
    return "\n".join(lines)
