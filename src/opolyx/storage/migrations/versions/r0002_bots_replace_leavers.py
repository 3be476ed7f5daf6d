"""Rooms where a bot takes over the seat of a person who resigns.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Chosen at creation: a person who resigns is freed and a normal bot plays their seat on.
    op.add_column(
        "rooms",
        sa.Column("bots_replace_leavers", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    # The game's seq at which a bot took this seat over from a person (null: it never changed hands).
    op.add_column("room_seats", sa.Column("took_over_at", sa.Integer, nullable=True))


def downgrade() -> None:
    op.drop_column("room_seats", "took_over_at")
    op.drop_column("rooms", "bots_replace_leavers")
