"""The account's default address: the default-address specialist's write on the
customers table, which keeps the account's postal code and country (what an identity
check compares) with it."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from customer_service.domain import Customer, PostalAddress
from customer_service.privacy import mask_address
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.core import StoreCore
from customer_service.store.customers import CustomerRow, customer_from_row, set_account_address
from customer_service.store.order_changes import Changed, ChangeRefusal

__all__ = ["DefaultAddressStore"]


class DefaultAddressStore(StoreCore):
    """The `Store` method that changes an account's default address."""

    async def change_default_address(
        self,
        *,
        customer_id: str,
        address: PostalAddress,
        call_id: str,
        other_events: Sequence[AuditEvent] = (),
    ) -> Changed[Customer]:
        """Makes `address` `customer_id`'s default address, and with it the account's
        postal code and country (the ones an identity check compares).

        One transaction reads the customer under the write lock, writes the address and
        a `default_address_changed` audit event (both addresses masked); both are
        written or neither. An address the account already has changes nothing and
        records nothing: the customer comes back as it is. `other_events` (audit events
        kept for the call's next write) are written in the same transaction, whatever
        the outcome. Raises `StoreUnavailable` on a database failure.
        """
        statement = (
            select(CustomerRow).where(CustomerRow.customer_id == customer_id).with_for_update()
        )
        async with self._write_session("change a default address") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await session.scalar(statement)
            if row is None:
                return Changed.refused(ChangeRefusal.CUSTOMER_NOT_FOUND)
            before = customer_from_row(row)
            if before.address == address:
                return Changed(before)
            set_account_address(row, address.postal_code, address.country, address)
            event = AuditEvent(
                call_id=call_id,
                kind="default_address_changed",
                customer_id=customer_id,
                detail={
                    "old_address": (
                        None if before.address is None else mask_address(before.address.one_line())
                    ),
                    "new_address": mask_address(address.one_line()),
                },
            )
            session.add(event_to_row(event))
            return Changed(customer_from_row(row))
