"""The table as a few lines of plain text a language model can read at a glance.

Built only from what the seat's socket received (the public game view, the room, the deadlines), so an
agent never learns more than a person in the same seat. Square names, groups, prices and build costs come
from the board tables (rules are data); the rent of each owned square is the one the server's game view
carries (the engine computes it), so no rule is worked out here. Every line is there because a decision
needs it, and kept short: a game's worth of summaries is most of what a model reads.
"""

from __future__ import annotations

import json
from functools import cache

from opolyx.jsontypes import JSON
from opolyx.rules import load_board
from opolyx.rules.model import Board, Square


@cache
def board_named(name: str) -> Board:
    return load_board(name)


def _square(board: Board, index: int | None) -> str:
    if index is None or not 0 <= index < len(board.squares):
        return "?"
    return f"{index} {board.squares[index].name}"


def seconds_left(deadlines: list[JSON], seat: int | None, trade: bool = False) -> float | None:
    """The least time left on the seat's running clocks (trade answers apart), or None."""
    left = [
        float(d["remaining"])
        for d in deadlines
        if d.get("seat") == seat
        and isinstance(d.get("remaining"), int | float)
        and (d.get("kind") == "trade") == trade
    ]
    return min(left) if left else None


def _left(deadlines: list[JSON], seat: int | None) -> str:
    left = seconds_left(deadlines, seat)
    return f" ({left:.0f} s left)" if left is not None else ""


def _group_of(board: Board, sq: Square) -> list[Square]:
    if sq.kind == "street":
        return [s for s in board.squares if s.kind == "street" and s.group == sq.group]
    return [s for s in board.squares if s.kind == sq.kind]


def _holdings(board: Board, views: list[JSON], owners: dict[int, int | None]) -> str:
    """One seat's companies by group, with what a decision needs: how much of the group it holds, the rent
    a tenant pays now on each, and the build cost once the group is complete. Names are left to the board
    (get_rules): numbers keep a game's worth of summaries small."""
    by_group: dict[str, list[JSON]] = {}
    for view in views:
        sq = board.squares[view["index"]]
        by_group.setdefault(str(sq.group if sq.kind == "street" else sq.kind), []).append(view)
    parts = []
    for name, group_views in by_group.items():
        first = board.squares[group_views[0]["index"]]
        group = _group_of(board, first)
        seat = group_views[0].get("owner")
        held = sum(1 for s in group if owners.get(s.index) == seat)
        items, rents = [], []
        for view in group_views:
            item = str(view["index"])
            if view.get("level"):
                item += f" L{view['level']}"
            if view.get("mortgaged"):
                item += " mortgaged"
            elif "rent" in view:
                rents.append(str(view["rent"]))
            items.append(item)
        note = f"{held}/{len(group)}"
        if rents:
            note += ", rent " + ",".join(rents)
        elif first.kind == "utility" and board.utility_multipliers and not all(v.get("mortgaged") for v in group_views):
            note += f", rent dice x{board.utility_multipliers[min(held, len(board.utility_multipliers)) - 1]}"
        if first.kind == "street" and held == len(group):
            note += f", build {first.level_cost}"
        parts.append(f"{name} {','.join(items)} ({note})")
    return "; ".join(parts)


def _kind(seat: JSON) -> str:
    return "bot" if seat["kind"] == "bot" else "agent" if seat.get("agent") else "person"


def summarize(
    room: JSON | None,
    you: JSON | None,
    game: JSON | None,
    deadlines: list[JSON],
    max_bid: int | None = None,
    brief: bool = False,
) -> str:
    """A compact, readable account of the room and the game from one seat's point of view. ``brief`` leaves
    out the other players' lines while the game runs (``act``'s answer: the caller has just seen them, and
    its events say what changed)."""
    if room is None:
        return "Not in a room. List rooms, create one or join one by its code."
    seat = you.get("seat") if you else None
    lines = [
        f"{room['mode'].capitalize()} room, {room['status']}"
        + (f", join code {room['code']}" if room.get("code") else "")
        + (f". You are seat {seat}." if seat is not None else ". You are watching (no seat).")
    ]
    if game is None:
        people = ", ".join(f"seat {p['seat']} {p['name']} ({_kind(p)})" for p in room["players"])
        lines.append(f"Waiting to start ({len(room['players'])} of {room['seats']} seats filled): {people}.")
        return "\n".join(lines)
    board = board_named(str(game.get("board", "classic")))
    rules = game.get("rules") or {}
    kinds = {p["seat"]: _kind(p) for p in room["players"]}
    limit = rules.get("round_limit")
    head = f"Round {game['round']}" + (f" of {limit}" if limit else "") + f", phase {game['phase']}, seq {game['seq']}"
    if game.get("rent_tax_percent"):
        head += f", rent tax {game['rent_tax_percent']:.0f} %"
    lines.append(head + ".")
    owners = {sq["index"]: sq.get("owner") for sq in game.get("squares", [])}
    for p in game["players"]:
        who = "you" if p["seat"] == seat else kinds.get(p["seat"], "person")
        if brief and who != "you" and not game.get("over"):
            continue
        if p["out"]:
            lines.append(f"seat {p['seat']} {p['name']} [{who}]: out ({p['out_reason']})")
            continue
        state = f"cash {p['cash']}, on {_square(board, p['position'])}"
        if p.get("in_jail"):
            state += ", in jail"
        if p.get("team") is not None and rules.get("teams"):
            state += f", team {p['team']}"
        owned = [sq for sq in game.get("squares", []) if sq.get("owner") == p["seat"]]
        lines.append(
            f"seat {p['seat']} {p['name']} [{who}]: {state}, net worth {p['net_worth']}; owns "
            + (_holdings(board, owned, owners) if owned else "nothing")
        )
    if game.get("over"):
        result = game.get("result") or {}
        lines.append(f"Game over ({result.get('reason')}): winner seat {result.get('winner')}.")
        places = ", ".join(f"{q['place']}. seat {q['seat']} ({q['net_worth']})" for q in result.get("placements", []))
        if places:
            lines.append(f"Places: {places}.")
        return "\n".join(lines)
    waiting = [
        f"seat {e['seat']} to {e['decision']}{_left(deadlines, e['seat'])}"
        for e in game["pending"]
        if "trade" not in e
    ]
    lines.append("Waiting for: " + ("; ".join(waiting) if waiting else "nobody") + ".")
    offer = game.get("offer")
    if offer is not None:
        sq = board.squares[offer] if isinstance(offer, int) else None
        lines.append(f"For sale: {_square(board, offer)}" + (f" at {sq.price}" if sq else "") + ".")
    auction = game.get("auction")
    if auction:
        sq = board.squares[auction["square"]]
        bid = (
            f"highest bid {auction['bid']} by seat {auction['leader']}"
            if auction.get("bid") is not None
            else "no bid yet"
        )
        line = (
            f"Auction of {_square(board, auction['square'])} (price {sq.price}): {bid}; "
            f"next bidder seat {auction['bidder']}, minimum bid {auction['minimum']}"
        )
        if max_bid is not None:
            line += f"; your standing maximum {max_bid}"
        lines.append(line + ".")
    for debt in game.get("debts") or []:
        lines.append(f"Debt: seat {debt['debtor']} owes {debt['amount']} ({debt['reason']}).")
    for trade in game.get("trades") or []:
        lines.append(
            f"Trade {trade['id']}: seat {trade['from']} gives {_side(trade['give'])} "
            f"to seat {trade['to']} for {_side(trade['take'])}."
        )
    return "\n".join(lines)


def _side(side: JSON) -> str:
    return json.dumps({"cash": side.get("cash", 0), "squares": side.get("squares", [])}, separators=(",", ":"))
