"""Coded errors. Codes are part of the protocol: clients branch on them, so they never change."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, *, room: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.room = room


class RoomRefused(Exception):
    """A lobby operation a room refuses (no such room, every seat taken, not its creator...). Raised by the
    room's hub and the room service with a code only; the HTTP edge answers it with the status the code
    has there (``opolyx.server.http.app``)."""

    def __init__(self, code: str, message: str, *, room: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.room = room


class ActionRefused(Exception):
    """An intent refused before or by the engine; becomes an error frame, changes nothing."""

    def __init__(
        self, code: str, message: str, *, reason: str | None = None, data: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        # The engine's numbers behind the refusal, where it gives them (e.g. an unfair trade's values).
        self.data = data


# HTTP (lobby) codes
NOT_AUTHENTICATED = "not_authenticated"
INVALID_REQUEST = "invalid_request"
NOT_FOUND = "not_found"
ROOM_NOT_FOUND = "room_not_found"
GAME_NOT_FOUND = "game_not_found"
ROOM_FULL = "room_full"
ALREADY_IN_GAME = "already_in_game"
NOT_CREATOR = "not_creator"
NOT_IN_ROOM = "not_in_room"
ALREADY_STARTED = "already_started"
NOT_ENOUGH_PLAYERS = "not_enough_players"
TEAM_NEEDS_FULL_TABLE = "team_needs_full_table"
INVALID_SEATS = "invalid_seats"
NOT_A_BOT = "not_a_bot"
GAME_NOT_FINISHED = "game_not_finished"
RATE_LIMITED = "rate_limited"
# Fair dice: the verify endpoint needs the commitment the client saw; it never judges its own against itself.
COMMITMENT_REQUIRED = "commitment_required"
# Accounts (docs/accounts.md)
LINK_INVALID = "link_invalid"
LINK_USED = "link_used"
LINK_EXPIRED = "link_expired"
MERGE_BLOCKED = "merge_blocked"
CONFIRM_SIGN_IN = "confirm_sign_in"
SESSION_NOT_FOUND = "session_not_found"
MAIL_UNAVAILABLE = "mail_unavailable"
KEY_NOT_FOUND = "key_not_found"
KEYS_NEED_SESSION = "keys_need_session"
SESSION_REQUIRED = "session_required"
TOO_MANY_KEYS = "too_many_keys"
# Table manners and moderation (docs/operating.md, "Moderation")
BANNED = "banned"
CHAT_MUTED = "chat_muted"
USER_NOT_FOUND = "user_not_found"
AMBIGUOUS_NAME = "ambiguous_name"
CANNOT_TARGET_SELF = "cannot_target_self"
NOT_FRIENDS = "not_friends"
NO_ROOM_TO_INVITE = "no_room_to_invite"
LINE_NOT_FOUND = "line_not_found"
REPORT_NOT_FOUND = "report_not_found"
SANCTION_NOT_FOUND = "sanction_not_found"
# Agents over /mcp (docs/agents.md): tool errors
TOO_MANY_WAITS = "too_many_waits"
CLIENT_GONE = "client_gone"

# WebSocket codes
BAD_JSON = "bad_json"
BAD_MESSAGE = "bad_message"
UNKNOWN_TYPE = "unknown_type"
UNKNOWN_ACTION = "unknown_action"
BAD_ACTION = "bad_action"
FORBIDDEN_ACTION = "forbidden_action"
FRAME_TOO_LARGE = "frame_too_large"
NOT_SEATED = "not_seated"
WRONG_SEAT = "wrong_seat"
GAME_NOT_RUNNING = "game_not_running"
STALE_STATE = "stale_state"
# The action was meant for a decision whose clock ran out first (the timeout played it): not stale, late.
CLOCK_EXPIRED = "clock_expired"
ILLEGAL_ACTION = "illegal_action"
CHAT_TOO_LONG = "chat_too_long"
CHAT_EMPTY = "chat_empty"
CONFLICT = "conflict"
INTERNAL = "internal_error"

# Security and abuse (docs/security.md)
BAD_ORIGIN = "bad_origin"
UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
INVALID_NICKNAME = "invalid_nickname"
RESERVED_NICKNAME = "reserved_nickname"
INVALID_TEXT = "invalid_text"
WRONG_CODE = "wrong_code"
TOO_MANY_SOCKETS = "too_many_sockets"
TOO_MANY_ROOMS = "too_many_rooms"
# House rules (opolyx.rules.house) and team choice.
HOUSE_RULE_UNKNOWN = "house_rule_unknown"
HOUSE_RULE_OUT_OF_BOUNDS = "house_rule_out_of_bounds"
HOUSE_RULE_NOT_IN_MODE = "house_rule_not_in_mode"
HOUSE_RULES_INCONSISTENT = "house_rules_inconsistent"
NOT_TEAM_ROOM = "not_team_room"
TEAM_FULL = "team_full"
# Seat colours (server/play/seat_colours.py).
COLOUR_TAKEN = "colour_taken"
PAYLOAD_TOO_LARGE = "payload_too_large"
