"""Seats a bot took over remember whose they were, so deleting that person's account finds the name the
engine was told for the seat (served in every replay) and pseudonymises it too.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("room_seats", sa.Column("replaced_user_id", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("room_seats", "replaced_user_id")
