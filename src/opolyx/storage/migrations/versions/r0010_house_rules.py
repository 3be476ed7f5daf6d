"""Rooms with house rules (a room's own changes to its mode's table).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Checked changes to the mode's table (opolyx.rules.house); null plays the standard mode. A game
    # rebuilt from its log (a restart, a replay) reads them from here, so it plays the same variant.
    op.add_column("rooms", sa.Column("house_rules", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=True))


def downgrade() -> None:
    op.drop_column("rooms", "house_rules")
