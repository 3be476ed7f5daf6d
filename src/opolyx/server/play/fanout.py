"""Fan-out: one accepted action encoded for every socket of its room, as little work as the room allows.

The part common to every socket is serialised once per action; then the whole game or, for a client that
asked for them, the game's changes since what it was last sent; legal actions once per seat; only the
acting socket's copy differs (its ``ref``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from opolyx.jsontypes import JSON
from opolyx.server.play.peers import Peer
from opolyx.server.wire import dumps


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



def send_events(
    conns: Iterable[Peer],
    base: JSON,
    view: JSON | None,
    *,
    seat_of: Callable[[str], int | None],
    legal: Callable[[int | None], list[JSON]],
    origin: Peer | None,
    ref: Any,
) -> None:
    """Send the ``events`` frame ``base`` to each of ``conns`` with its game part (``view`` whole, or its
    changes since the socket's ``seen_view``), the legal actions of its seat (``seat_of`` its person) and,
    for ``origin`` alone, ``ref``."""
    common = dumps(base)[:-1]
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
    for conn in list(conns):
        s = seat_of(conn.user.id)
        key, part = game_part(conn.seen_view if conn.wants_changes else None)
        conn.seen_view = view
        legal_text = legal_texts.get(s)
        if legal_text is None:
            legal_text = legal_texts[s] = dumps(legal(s))
        if conn is origin:
            conn.send_text(f'{common},{part},"legal":{legal_text},"ref":{dumps(ref)}}}')
            continue
        text = texts.get((key, s))
        if text is None:
            text = texts[key, s] = f'{common},{part},"legal":{legal_text},"ref":null}}'
        conn.send_text(text)
