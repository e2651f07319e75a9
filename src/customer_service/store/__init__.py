"""Data access: customers, orders, address changes, cancellations, consents, escalations,
failed identity checks and audit events behind one async `Store`.

Nothing outside this package writes SQL. `Store.open(url)` works with
`sqlite+aiosqlite:///path/to/file`, `sqlite+aiosqlite:///:memory:` and
`postgresql+asyncpg://...`, and seeds the demo data into an empty database. Each
concern keeps its table, its record and its methods in one module.
"""

from customer_service.store.addresses import AddressChange, AddressChangeOutcome
from customer_service.store.audit import AuditEvent
from customer_service.store.consents import ConsentRecord
from customer_service.store.errors import StoreUnavailable
from customer_service.store.escalations import EscalationRecord
from customer_service.store.orders import CancellationOutcome
from customer_service.store.repository import Store

__all__ = [
    "AddressChange",
    "AddressChangeOutcome",
    "AuditEvent",
    "CancellationOutcome",
    "ConsentRecord",
    "EscalationRecord",
    "Store",
    "StoreUnavailable",
]
