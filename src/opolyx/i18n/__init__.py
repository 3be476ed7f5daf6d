"""Message catalogs and locale-aware formatting (amounts, 万)."""
