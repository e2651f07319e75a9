"""Alembic migrations of the store; see alembic.ini and `customer_service.store.schema`."""
