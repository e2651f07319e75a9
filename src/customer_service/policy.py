"""The rules of the call, in code: results are checked here before the supervisor acts."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from livekit.agents import ToolError
from pydantic import ValidationError

from customer_service.addresses import AddressProblem, validated_address
from customer_service.call_state import CallState
from customer_service.domain import Customer, PostalAddress
from customer_service.tasks.address_update import AddressUpdateResult
from customer_service.tasks.identity import IdentityOutcome, IdentityResult
from customer_service.tasks.order_lookup import OrderLookupResult

logger = logging.getLogger("customer_service.policy")

ResultT = TypeVar("ResultT")

OFFER_HUMAN = "I can transfer you to a colleague who can help."
VERIFICATION_LOCKED = (
    "I'm sorry, I can't verify your identity on this call after too many unsuccessful "
    "attempts. " + OFFER_HUMAN
)
VERIFICATION_DECLINED = (
    "That's fine. I can't share or change anything on an account without verifying the "
    "caller, but I'm happy to help with anything else."
)
RESULT_UNUSABLE = "I'm sorry, something went wrong on my side while checking that. " + OFFER_HUMAN


class ResultRejected(Exception):
    """A specialist's result failed validation; the reason is for logs, never for the caller."""


async def validated_with_retries(
    state: CallState, attempt: Callable[[], Awaitable[ResultT]], *, what: str
) -> ResultT:
    """Runs `attempt` (produce a result, then validate it) until one passes, allowing the
    configured retries; then the caller is offered a colleague instead."""
    for _ in range(state.settings.result_validation_retries + 1):
        try:
            return await attempt()
        except ResultRejected as rejection:
            logger.error(
                "result rejected",
                extra={"call_id": state.call_id, "result": what, "reason": str(rejection)},
            )
    raise ToolError(RESULT_UNUSABLE)


def validated_identity(result: object, state: CallState) -> Customer | IdentityOutcome:
    """The verified customer, or the non-verified outcome, after checking the result
    agrees with call state (which only the identity checks themselves can set)."""
    try:
        identity = IdentityResult.model_validate(result)
    except ValidationError as error:
        raise ResultRejected(f"identity result malformed: {error.error_count()} errors") from None
    customer = state.verified_customer
    if identity.outcome is IdentityOutcome.VERIFIED:
        if customer is None or customer.customer_id != identity.customer_id:
            raise ResultRejected("identity result claims a verification call state lacks")
        return customer
    if identity.outcome is IdentityOutcome.LOCKED and not state.identity.locked:
        raise ResultRejected("identity result claims a lock call state lacks")
    return identity.outcome


async def validated_order(
    result: object, state: CallState, requested_order_id: str | None
) -> OrderLookupResult:
    """The order result, once it is well formed, the one asked for, the verified caller's
    own, and in agreement with the store."""
    try:
        order = OrderLookupResult.model_validate(result)
    except ValidationError as error:
        raise ResultRejected(f"order result malformed: {error.error_count()} errors") from None
    customer = state.verified_customer
    if customer is None:
        raise ResultRejected("order result for an unverified caller")
    if requested_order_id is not None and order.order_id != requested_order_id:
        raise ResultRejected("order result is not the order asked for")
    if order.customer_id != customer.customer_id:
        raise ResultRejected("order result belongs to another customer")
    stored = await state.store.get_order(order.order_id)
    if stored is None or OrderLookupResult.from_order(stored) != order:
        raise ResultRejected("order result disagrees with the store")
    return order


def validated_address_update(result: object, order_id: str) -> PostalAddress:
    """The confirmed address, once it is for the order being changed and passes the same
    address rules again (the result could have been built by anything)."""
    try:
        update = AddressUpdateResult.model_validate(result)
    except ValidationError as error:
        raise ResultRejected(f"address result malformed: {error.error_count()} errors") from None
    if update.order_id != order_id:
        raise ResultRejected("address result is for another order")
    address = update.address
    try:
        revalidated = validated_address(
            street=address.street,
            city=address.city,
            region=address.region,
            postal_code=address.postal_code,
            country=address.country,
            unit=address.unit,
        )
    except AddressProblem as problem:
        raise ResultRejected(f"address result fails validation: {problem.field}") from None
    if revalidated != address:
        raise ResultRejected("address result is not in canonical form")
    return address
