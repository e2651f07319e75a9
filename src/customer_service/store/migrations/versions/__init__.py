"""The store's schema revisions, oldest first (loaded by Alembic, not imported)."""
