"""`Store.change_default_address`: an account's default address, postal code and country
change together, with an audit event that masks both addresses."""

from __future__ import annotations

import asyncio

from customer_service.domain import Customer, PostalAddress
from customer_service.privacy import mask_address
from customer_service.store import AuditEvent, Store
from customer_service.store.order_changes import Changed, ChangeRefusal
from support.demo_addresses import JORDAN_ADDRESS
from support.store_records import customer_records

JORDAN = "C-1001"
MADRID = PostalAddress(
    street="Gran Vía 1", city="Madrid", region="M", postal_code="28013", country="ES"
)
OAKLAND = PostalAddress(
    street="1 Broadway",
    unit="Suite 2",
    city="Oakland",
    region="CA",
    postal_code="94607",
    country="US",
)


async def _change(
    store: Store, address: PostalAddress, *, customer_id: str = JORDAN, call_id: str = "call-1"
) -> Changed[Customer]:
    return await store.change_default_address(
        customer_id=customer_id, address=address, call_id=call_id
    )


async def test_the_address_carries_the_accounts_postal_code_and_country(store: Store) -> None:
    before = await store.get_customer(JORDAN)
    assert before is not None

    changed = await _change(store, MADRID)

    after = before.model_copy(update={"address": MADRID, "postal_code": "28013", "country": "ES"})
    assert changed == Changed(after)
    assert await store.get_customer(JORDAN) == after
    # The identity check finds the account by its new postal code, not its old one.
    assert [c.customer_id for c in await store.customers_with_postal_code("28013")] == [
        JORDAN,
        "C-1003",
    ]
    assert JORDAN not in [c.customer_id for c in await store.customers_with_postal_code("94107")]
    [event] = await store.audit_events()
    assert event == AuditEvent(
        call_id="call-1",
        kind="default_address_changed",
        customer_id=JORDAN,
        detail={
            "old_address": mask_address(JORDAN_ADDRESS.one_line()),
            "new_address": mask_address(MADRID.one_line()),
        },
        created_at=event.created_at,
    )
    assert "Gran" not in str(event.detail)
    assert "Howard" not in str(event.detail)


async def test_an_unknown_customer_is_not_found_and_nothing_changes(store: Store) -> None:
    before = await customer_records(store, JORDAN)

    assert await _change(store, OAKLAND, customer_id="C-9999") == Changed.refused(
        ChangeRefusal.CUSTOMER_NOT_FOUND
    )

    assert await store.get_customer("C-9999") is None
    assert await customer_records(store, JORDAN) == before
    assert await store.audit_events() == []


async def test_the_address_the_account_has_changes_nothing(store: Store) -> None:
    first = await _change(store, OAKLAND)
    records = await customer_records(store, JORDAN)

    again = await _change(store, OAKLAND, call_id="call-2")

    assert again == first
    assert await customer_records(store, JORDAN) == records
    assert len(await store.audit_events(kind="default_address_changed")) == 1


async def test_orders_keep_the_address_they_ship_to(store: Store) -> None:
    before = (await customer_records(store, JORDAN)).orders

    await _change(store, OAKLAND)

    assert (await customer_records(store, JORDAN)).orders == before


async def test_concurrent_changes_leave_one_of_the_addresses_with_its_postal_code(
    store: Store,
) -> None:
    results = await asyncio.gather(
        _change(store, MADRID, call_id="call-1"), _change(store, OAKLAND, call_id="call-2")
    )

    assert all(result.done for result in results)
    customer = await store.get_customer(JORDAN)
    assert customer is not None
    assert customer.address in (MADRID, OAKLAND)
    assert customer.address is not None
    assert (customer.postal_code, customer.country) == (
        customer.address.postal_code,
        customer.address.country,
    )
    events = await store.audit_events(kind="default_address_changed")
    # Each change saw the address the other left: the last one's new address is the one kept.
    assert events[-1].detail["new_address"] == mask_address(customer.address.one_line())
    assert events[0].detail["new_address"] == events[-1].detail["old_address"]
