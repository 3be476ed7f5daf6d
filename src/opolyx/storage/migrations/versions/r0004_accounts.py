"""Accounts and progression: server-side sessions, magic links, XP per game, collectible cards.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("avatar", sa.String(24), nullable=True))
        batch.add_column(sa.Column("xp", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("level", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("wins", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("drop_seed", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_users_xp", "users", ["xp"])
    op.create_index("ix_users_wins", "users", ["wins"])

    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("user_agent", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])

    op.create_table(
        "magic_links",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("guest_id", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_magic_links_email", "magic_links", ["email"])

    op.create_table(
        "xp_awards",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("parts", Json, nullable=False),
        sa.Column("refused", sa.String(32), nullable=True),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("level_before", sa.Integer, nullable=False),
        sa.Column("level_after", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_xp_awards_created_at", "xp_awards", ["created_at"])
    op.create_index("ix_xp_awards_user_id_created_at", "xp_awards", ["user_id", "created_at"])

    op.create_table(
        "cards",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("square", sa.Integer, nullable=False),
        sa.Column("rarity", sa.String(16), nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_cards_user_id", "cards", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_cards_user_id", table_name="cards")
    op.drop_table("cards")
    op.drop_index("ix_xp_awards_user_id_created_at", table_name="xp_awards")
    op.drop_index("ix_xp_awards_created_at", table_name="xp_awards")
    op.drop_table("xp_awards")
    op.drop_index("ix_magic_links_email", table_name="magic_links")
    op.drop_table("magic_links")
    op.drop_index("ix_sessions_user_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("ix_users_wins", table_name="users")
    op.drop_index("ix_users_xp", table_name="users")
    with op.batch_alter_table("users") as batch:
        for name in ("deleted_at", "drop_seed", "wins", "level", "xp", "avatar"):
            batch.drop_column(name)
