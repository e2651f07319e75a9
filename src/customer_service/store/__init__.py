"""Data access: every concern of the store (customers, orders, address changes,
consents, ...) behind one async `Store`.

Nothing outside this package writes SQL. `Store.open(url)` works with
`sqlite+aiosqlite:///path/to/file`, `sqlite+aiosqlite:///:memory:` and
`postgresql+asyncpg://...` (`pip install '.[postgres]'`). The schema comes from the
Alembic revisions in `migrations/` (`schema.py`), the demo data from `seed.py`, and a
worker process's one engine from `shared.py`. Each concern keeps its table, its record
and its methods in one module, found without being listed (`schema.store_metadata`);
the records below are the ones used across the agent, and a new concern's may be
imported from its own module.
"""

from customer_service.store.addresses import AddressChange, AddressChangeOutcome
from customer_service.store.audit import AuditEvent
from customer_service.store.consents import ConsentRecord
from customer_service.store.engine import PoolSize
from customer_service.store.errors import (
    MIGRATE_COMMAND,
    DemoDataRefused,
    SchemaNotCurrent,
    StoreMisconfigured,
    StoreUnavailable,
)
from customer_service.store.escalations import EscalationRecord
from customer_service.store.identity_failures import IdentityCandidate
from customer_service.store.identity_release import IdentityHoldRelease
from customer_service.store.orders import CancellationOutcome
from customer_service.store.repository import Store
from customer_service.store.returns import (
    RETURN_WINDOW_DAYS,
    ReturnOutcome,
    ReturnReason,
    ReturnRequest,
    last_return_day,
    return_refusal,
)
from customer_service.store.seed import DemoDataAdded

__all__ = [
    "MIGRATE_COMMAND",
    "RETURN_WINDOW_DAYS",
    "AddressChange",
    "AddressChangeOutcome",
    "AuditEvent",
    "CancellationOutcome",
    "ConsentRecord",
    "DemoDataAdded",
    "DemoDataRefused",
    "EscalationRecord",
    "IdentityCandidate",
    "IdentityHoldRelease",
    "PoolSize",
    "ReturnOutcome",
    "ReturnReason",
    "ReturnRequest",
    "SchemaNotCurrent",
    "Store",
    "StoreMisconfigured",
    "StoreUnavailable",
    "last_return_day",
    "return_refusal",
]
