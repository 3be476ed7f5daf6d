"""Chat messages per room, so the recent chat survives a restart (and a room changing owner).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.String(32), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("spectator", sa.Boolean, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_chat_messages_room_id_id", "chat_messages", ["room_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_chat_messages_room_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
