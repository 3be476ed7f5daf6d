"""SQLAlchemy Core tables. The Alembic migrations are the source of truth for the schema; these
mirror them for querying, and tests/storage check the two agree."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

metadata = sa.MetaData()

Json = sa.JSON().with_variant(JSONB(), "postgresql")

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("nickname", sa.String(40), nullable=False),
    sa.Column("language", sa.String(8), nullable=False),
    # Ready for e-mail accounts: a guest is a user without an address.
    sa.Column("email", sa.String(320), nullable=True, unique=True),
    sa.Column("email_verified_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # Migration 0004: profile and progression. xp and wins are indexed: the leaderboard reads them.
    sa.Column("avatar", sa.String(24), nullable=True),
    sa.Column("xp", sa.Integer, nullable=False, server_default="0", index=True),
    sa.Column("level", sa.Integer, nullable=False, server_default="1"),
    sa.Column("wins", sa.Integer, nullable=False, server_default="0", index=True),
    sa.Column("drop_seed", sa.BigInteger, nullable=True),
    sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
)

rooms = sa.Table(
    "rooms",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("code", sa.String(16), nullable=True, unique=True),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("seat_count", sa.Integer, nullable=False),
    sa.Column("public", sa.Boolean, nullable=False),
    sa.Column("creator_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("seed", sa.BigInteger, nullable=True),
    sa.Column("seat_info", Json, nullable=True),
    sa.Column("result", Json, nullable=True),
    sa.Column("clocks", Json, nullable=True),
    # Migration 0002: a bot of normal strength takes over the seat of a person who resigns.
    sa.Column("bots_replace_leavers", sa.Boolean, nullable=False, server_default=sa.false()),
    # Migration 0010: the room's house rules (changes to its mode's table; null: the standard mode).
    sa.Column("house_rules", Json, nullable=True),
    # Migration 0008: the game moves skill ratings when it ends.
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
)

room_seats = sa.Table(
    "room_seats",
    metadata,
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=True),
    sa.Column("bot", sa.String(16), nullable=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("out", sa.Boolean, nullable=False),
    # True while a person sits in an unfinished game and is not out; the partial unique index below
    # makes "one unfinished game per person" hold even when two joins race.
    sa.Column("active", sa.Boolean, nullable=False),
    # Migration 0002: the game's seq at which a bot took this seat over from a person who resigned.
    sa.Column("took_over_at", sa.Integer, nullable=True),
    # Migration 0004: the seat was taken through a personal API key (an AI agent plays it).
    sa.Column("agent", sa.Boolean, nullable=False, server_default=sa.false()),
    # Migration 0006: whose seat a bot took over (the person's id, never shown): deleting their account
    # pseudonymises the name the engine was told for it.
    sa.Column("replaced_user_id", sa.String(64), nullable=True),
    sa.Index(
        "uq_room_seats_active_user",
        "user_id",
        unique=True,
        sqlite_where=sa.text("active"),
        postgresql_where=sa.text("active"),
    ),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    # (game_id, seq) as primary key: two writers can never both store action n.
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("action", Json, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # Migration 0007: who made the action (person, agent, bot, clock, server) and how many milliseconds
    # after the state it answered it arrived: the measured play XP is paid for (opolyx.progression.play).
    sa.Column("actor", sa.String(8), nullable=True),
    sa.Column("elapsed_ms", sa.Integer, nullable=True),
)

# Migration 0007: the identities seen acting for a seat ("user:<id>", and keyed hashes of the session,
# the address and the device cookie): two seats sharing one are one person (docs/accounts.md).
seat_marks = sa.Table(
    "seat_marks",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("mark", sa.String(80), primary_key=True),
)

# Migration 0003: what was said in each room; the server serves the last few on connect.
chat_messages = sa.Table(
    "chat_messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
    sa.Column("user_id", sa.String(64), nullable=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("spectator", sa.Boolean, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("ix_chat_messages_room_id_id", "room_id", "id"),
)

# Migration 0004: server-side sessions. The cookie holds a signed secret; only its hash is stored, so a
# database leak signs nobody in. Revoking sets revoked_at and the cookie stops working at once.
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("user_agent", sa.String(200), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)

# Migration 0004: e-mailed sign-in links, single use, stored as a hash of the secret.
magic_links = sa.Table(
    "magic_links",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("email", sa.String(320), nullable=False, index=True),
    sa.Column("guest_id", sa.String(64), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
)

# Migration 0004: XP credited per seat of a finished game (also the weekly leaderboard's index).
xp_awards = sa.Table(
    "xp_awards",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("xp", sa.Integer, nullable=False),
    sa.Column("parts", Json, nullable=False),
    sa.Column("refused", sa.String(32), nullable=True),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("level_before", sa.Integer, nullable=False),
    sa.Column("level_after", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
    # Migration 0007: an AI agent's seat: points for the agents' board, never a person's XP.
    sa.Column("agent", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index("ix_xp_awards_user_id_created_at", "user_id", "created_at"),
)

# Migration 0007: XP a guest brought into an account when merged, and how much the daily cap let in.
xp_merges = sa.Table(
    "xp_merges",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("guest_id", sa.String(64), nullable=False),
    sa.Column("xp_brought", sa.Integer, nullable=False),
    sa.Column("xp_added", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_xp_merges_user_id_created_at", "user_id", "created_at"),
)

# Migration 0004: collectible cards; seed and level re-draw the card (progression.drops.draw_card).
cards = sa.Table(
    "cards",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("square", sa.Integer, nullable=False),
    sa.Column("rarity", sa.String(16), nullable=False),
    sa.Column("level", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("game_id", sa.String(32), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
# Migration 0005: personal API keys; only a SHA-256 digest of each key is stored.
api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("label", sa.String(60), nullable=False),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)

# Migration 0008: skill ratings (OpenSkill mu/sigma) per person, mode and pool ("people", or "agents" for
# seats played through a personal API key), and every change with the game that made it. ``ordinal``
# (mu - 3 sigma) is kept beside them so a mode's leaderboard reads one index.
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("mode", sa.String(16), primary_key=True),
    sa.Column("pool", sa.String(8), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("ordinal", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_ratings_mode_pool_ordinal", "mode", "pool", "ordinal"),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("pool", sa.String(8), primary_key=True),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_rating_history_user_id_created_at", "user_id", "created_at"),
)

# Migration 0009 (moderation): links between people ("friend" asked, mutual when both rows exist; "mute";
# "block"), invitations into a room, the chat filter preference, reports with their evidence, operators'
# sanctions, the operators' audit log, and the games each person left early or forfeited.
social_links = sa.Table(
    "social_links",
    metadata,
    sa.Column("user_id", sa.String(64), primary_key=True),
    sa.Column("other_id", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_social_links_other_id_kind", "other_id", "kind"),
)

social_invites = sa.Table(
    "social_invites",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("from_id", sa.String(64), nullable=False),
    sa.Column("to_id", sa.String(64), nullable=False, index=True),
    sa.Column("room_id", sa.String(32), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

chat_prefs = sa.Table(
    "chat_prefs",
    metadata,
    sa.Column("user_id", sa.String(64), primary_key=True),
    sa.Column("filter_words", sa.Boolean, nullable=False),
)

mod_reports = sa.Table(
    "mod_reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reporter_id", sa.String(64), nullable=False, index=True),
    sa.Column("reported_id", sa.String(64), nullable=False, index=True),
    sa.Column("room_id", sa.String(32), nullable=True),
    sa.Column("reason", sa.String(24), nullable=False),
    sa.Column("note", sa.Text, nullable=True),
    sa.Column("line", Json, nullable=True),
    sa.Column("evidence", Json, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("handled_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("handled_by", sa.String(64), nullable=True),
    sa.Column("outcome", sa.String(200), nullable=True),
)

mod_sanctions = sa.Table(
    "mod_sanctions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("user_id", sa.String(64), nullable=True, index=True),
    sa.Column("address", sa.String(64), nullable=True, index=True),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("created_by", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("lifted_at", sa.DateTime(timezone=True), nullable=True),
)

mod_audit = sa.Table(
    "mod_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
    sa.Column("operator", sa.String(320), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("target", sa.String(200), nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("details", Json, nullable=True),
)

departures = sa.Table(
    "departures",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(64), primary_key=True, index=True),
    sa.Column("kind", sa.String(12), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)
