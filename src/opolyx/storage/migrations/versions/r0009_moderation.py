"""Table manners and moderation: friends, mutes and blocks between people, invitations, the chat filter
preference, reports with their evidence, operators' sanctions (bans and mutes of a person or an address),
the operators' audit log, and the games each person left early or forfeited (their reliability).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    # One row per (person, other person, kind): "friend" (asked; mutual when both rows exist), "mute", "block".
    op.create_table(
        "social_links",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("other_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_social_links_other_id_kind", "social_links", ["other_id", "kind"])
    op.create_table(
        "social_invites",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("from_id", sa.String(64), nullable=False),
        sa.Column("to_id", sa.String(64), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_social_invites_to_id", "social_invites", ["to_id"])
    op.create_table(
        "chat_prefs",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("filter_words", sa.Boolean, nullable=False),
    )
    op.create_table(
        "mod_reports",
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
    op.create_table(
        "mod_sanctions",
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
    op.create_table(
        "mod_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("operator", sa.String(320), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("details", Json, nullable=True),
    )
    op.create_table(
        "departures",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_departures_user_id", "departures", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_departures_user_id", table_name="departures")
    op.drop_table("departures")
    op.drop_table("mod_audit")
    op.drop_table("mod_sanctions")
    op.drop_table("mod_reports")
    op.drop_table("chat_prefs")
    op.drop_index("ix_social_invites_to_id", table_name="social_invites")
    op.drop_table("social_invites")
    op.drop_index("ix_social_links_other_id_kind", table_name="social_links")
    op.drop_table("social_links")
