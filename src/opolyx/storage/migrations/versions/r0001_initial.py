"""Initial schema: users, rooms, seats, action log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("nickname", sa.String(40), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("email", sa.String(320), nullable=True, unique=True),
        sa.Column("email_verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(16), nullable=True, unique=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("seat_count", sa.Integer, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("creator_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=True),
        sa.Column("seat_info", Json, nullable=True),
        sa.Column("result", Json, nullable=True),
        sa.Column("clocks", Json, nullable=True),
    )
    op.create_index("ix_rooms_status", "rooms", ["status"])
    op.create_table(
        "room_seats",
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("bot", sa.String(16), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("out", sa.Boolean, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
    )
    op.create_index(
        "uq_room_seats_active_user",
        "room_seats",
        ["user_id"],
        unique=True,
        sqlite_where=sa.text("active"),
        postgresql_where=sa.text("active"),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("action", Json, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_index("uq_room_seats_active_user", table_name="room_seats")
    op.drop_table("room_seats")
    op.drop_index("ix_rooms_status", table_name="rooms")
    op.drop_table("rooms")
    op.drop_table("users")
