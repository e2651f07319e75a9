"""What one call knows about its caller: the session's userdata.

Verification state changes only through the named transitions below, which only the
identity specialist's checks call. Nothing the caller says can set it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from customer_service.domain import Customer
from customer_service.settings import Settings
from customer_service.store import Store


@dataclass
class IdentityState:
    customer: Customer | None = None
    failed_checks: int = 0
    locked: bool = False


@dataclass
class CallState:
    store: Store
    settings: Settings
    call_id: str = field(default_factory=lambda: f"call-{uuid.uuid4().hex[:12]}")
    identity: IdentityState = field(default_factory=IdentityState)
    order_lookup_failures: int = 0
    disclosed_order_ids: list[str] = field(default_factory=list)
    ending: bool = False
    """The agent has said goodbye; no further caller turn belongs to this call."""

    @property
    def verified_customer(self) -> Customer | None:
        return self.identity.customer

    @property
    def identity_attempts_left(self) -> int:
        return max(0, self.settings.identity_max_attempts - self.identity.failed_checks)

    def mark_verified(self, customer: Customer) -> None:
        self.identity.customer = customer

    def record_failed_identity_check(self) -> None:
        """Counts a failed check; the last allowed failure locks verification for the call."""
        self.identity.failed_checks += 1
        if self.identity_attempts_left == 0:
            self.identity.locked = True

    def record_order_lookup_failure(self) -> None:
        self.order_lookup_failures += 1

    @property
    def order_lookup_attempts_left(self) -> int:
        return max(0, self.settings.order_lookup_max_attempts - self.order_lookup_failures)

    def end(self) -> None:
        self.ending = True

    def record_disclosure(self, order_id: str) -> None:
        if order_id not in self.disclosed_order_ids:
            self.disclosed_order_ids.append(order_id)
