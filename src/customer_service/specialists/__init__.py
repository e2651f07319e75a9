"""The specialists: one focused sub-conversation per file, each ending in a typed result."""

from customer_service.specialists.identity import (
    IdentityOutcome,
    IdentityResult,
    VerifyIdentityTask,
)
from customer_service.specialists.order_lookup import OrderLookupResult, OrderLookupTask

__all__ = [
    "IdentityOutcome",
    "IdentityResult",
    "OrderLookupResult",
    "OrderLookupTask",
    "VerifyIdentityTask",
]
