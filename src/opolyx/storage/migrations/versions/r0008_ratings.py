"""Skill ratings: rooms say whether their game is rated; each person's OpenSkill rating per mode and pool
(people, or agents playing through a personal API key), and the history of every change.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    # Rooms open at the upgrade: public ones were rated (the lobby's default), private ones not.
    op.execute(sa.text("UPDATE rooms SET rated = public"))
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(64), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("mode", sa.String(16), primary_key=True),
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_mode_pool_ordinal", "ratings", ["mode", "pool", "ordinal"])
    op.create_table(
        "rating_history",
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
    )
    op.create_index("ix_rating_history_user_id_created_at", "rating_history", ["user_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_user_id_created_at", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_mode_pool_ordinal", table_name="ratings")
    op.drop_table("ratings")
    op.drop_column("rooms", "rated")
