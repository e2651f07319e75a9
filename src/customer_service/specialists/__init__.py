"""The specialists: one focused sub-conversation per file, each ending in a typed result.

Each file holds a specialist's instructions, tools, result, the check of that result
and the write it leads to. The package face exports each task with its result.
"""

from customer_service.specialists.address_update import AddressUpdateResult, AddressUpdateTask
from customer_service.specialists.cancellation import CancellationResult, CancellationTask
from customer_service.specialists.consent import ConsentResult, ConsentTask
from customer_service.specialists.identity import IdentityResult, VerifyIdentityTask
from customer_service.specialists.order_lookup import OrderLookupResult, OrderLookupTask

__all__ = [
    "AddressUpdateResult",
    "AddressUpdateTask",
    "CancellationResult",
    "CancellationTask",
    "ConsentResult",
    "ConsentTask",
    "IdentityResult",
    "OrderLookupResult",
    "OrderLookupTask",
    "VerifyIdentityTask",
]
