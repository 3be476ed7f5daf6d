"""The operators' actions, shared by the operator page's routes and ``opolyx admin``: each does what it
says and writes who did it, to whom, why and when to the audit log (``mod_audit``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from opolyx.storage import Store
from opolyx.storage.moderation import BAN, SANCTION_KINDS

if TYPE_CHECKING:
    from opolyx.server.play.rooms import RoomService

# The longest sanction an operator may set in one go (a year); longer ones are set again.
MAX_MINUTES = 366 * 24 * 60


async def sanction(
    store: Store,
    rooms: RoomService | None,
    operator: str,
    *,
    kind: str,
    user_id: str | None,
    address: str | None,
    minutes: int,
    reason: str,
) -> int:
    """Ban or mute a person or an address for ``minutes``. A ban of a person ends their sessions and
    personal API keys at once, and ``rooms`` closes their sockets on every process; a ban of an address
    closes every socket opened from it."""
    if kind not in SANCTION_KINDS:
        raise ValueError(f"unknown sanction {kind!r}")
    if (user_id is None) == (address is None):
        raise ValueError("a sanction names a person or an address")
    minutes = max(1, min(MAX_MINUTES, minutes))
    until = datetime.now(UTC) + timedelta(minutes=minutes)
    sanction_id = await store.add_sanction(
        kind, user_id=user_id, address=address, reason=reason, by=operator, until=until
    )
    details: dict[str, object] = {"sanction": sanction_id, "minutes": minutes, "until": until.isoformat()}
    if kind == BAN and user_id is not None:
        details["sessions_revoked"] = await store.revoke_sessions(user_id)
        details["keys_revoked"] = await store.revoke_api_keys(user_id)
        if rooms is not None:
            rooms.close_user_sockets(user_id)
    if kind == BAN and address is not None and rooms is not None:
        rooms.close_address_sockets(address)
    target = f"user:{user_id}" if user_id is not None else f"address:{address}"
    await store.audit(operator, kind, target, reason, details)
    return sanction_id


async def lift(store: Store, operator: str, sanction_id: int, reason: str) -> bool:
    found = await store.lift_sanction(sanction_id)
    if found is None:
        return False
    target = f"user:{found.user_id}" if found.user_id is not None else f"address:{found.address}"
    await store.audit(operator, f"lift_{found.kind}", target, reason, {"sanction": sanction_id})
    return True


async def close_report(store: Store, operator: str, report_id: int, outcome: str) -> bool:
    done = await store.close_report(report_id, operator, outcome)
    if done:
        await store.audit(operator, "close_report", f"report:{report_id}", outcome, None)
    return done
