"""Progression that honest players earn and scripts cannot farm (issue #40): every stored action says who
made it (a person's socket, an agent's key, a bot, the clock, the server) and how long after the state it
answered it arrived; the identities seen acting for each seat (account, session, address and device, the
last three as keyed hashes) are kept per game; XP a guest brings into an account is recorded so the daily
cap counts it; agents' points are booked apart from people's XP.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("actor", sa.String(8), nullable=True))
    op.add_column("actions", sa.Column("elapsed_ms", sa.Integer, nullable=True))
    op.add_column("xp_awards", sa.Column("agent", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "seat_marks",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("mark", sa.String(80), primary_key=True),
    )
    op.create_table(
        "xp_merges",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("guest_id", sa.String(64), nullable=False),
        sa.Column("xp_brought", sa.Integer, nullable=False),
        sa.Column("xp_added", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Index("ix_xp_merges_user_id_created_at", "user_id", "created_at"),
    )


def downgrade() -> None:
    op.drop_table("xp_merges")
    op.drop_table("seat_marks")
    op.drop_column("xp_awards", "agent")
    op.drop_column("actions", "elapsed_ms")
    op.drop_column("actions", "actor")
