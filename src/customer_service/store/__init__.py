"""Data access: customers, orders, address changes, consents, escalations and audit
events behind one async `Store`.

Nothing outside this package writes SQL. `Store.open(url)` works with
`sqlite+aiosqlite:///path/to/file`, `sqlite+aiosqlite:///:memory:` and
`postgresql+asyncpg://...`, and seeds the demo data into an empty database.
"""

from customer_service.store.errors import StoreUnavailable
from customer_service.store.events import AuditEvent
from customer_service.store.records import (
    AddressChange,
    AddressChangeOutcome,
    ConsentRecord,
    EscalationRecord,
)
from customer_service.store.repository import Store

__all__ = [
    "AddressChange",
    "AddressChangeOutcome",
    "AuditEvent",
    "ConsentRecord",
    "EscalationRecord",
    "Store",
    "StoreUnavailable",
]
