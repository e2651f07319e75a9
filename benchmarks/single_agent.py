"""The single-agent baseline: one `Agent`, one prompt, plain function tools, no specialists.

It does the same store work as the supervised agent through the same `Store` methods
(the identity match with the per-account failure count, `identity_candidates`; a failed
check, `record_failed_identity_check`; the order read and its disclosure audit, the
address change with its read-back, the cancellation with the caller's reason, the
consent record with its wording version), and keeps the same visible policy: verify
first, ask why an order is to be cancelled, read an address or a cancellation back
before the write, ask consent in the fixed wording. What it lacks by design is what the
supervised agent adds: fixed questions spoken without the model, checks in code of the
caller's own words, scoped history. Tools return facts; the model relays them. Its
audit events are plain: each one written at once in a transaction of its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from textwrap import dedent
from typing import Any

from livekit.agents import Agent, AgentSession, RunContext, ToolError, function_tool, llm

from customer_service.addresses import AddressProblem, read_back, validated_address
from customer_service.call.wording import GREETING, OFFER_HUMAN, PERSONA
from customer_service.domain import CancelReason, Customer, Order, OrderStatus, PostalAddress
from customer_service.normalize import (
    emails_match,
    names_match,
    phones_match,
    postal_codes_match,
)
from customer_service.order_numbers import normalize_order_id, spoken_order_id
from customer_service.settings import Settings
from customer_service.specialists.consent import CONSENT_WORDING, ConsentTopic
from customer_service.store import (
    AddressChangeOutcome,
    AuditEvent,
    CancellationOutcome,
    ConsentRecord,
    Store,
)

SMS = ConsentTopic.ORDER_UPDATES_SMS

SINGLE_AGENT_INSTRUCTIONS = PERSONA + dedent(
    f"""
    You help callers with their orders: status, delivery address changes, cancellations
    and text-update preferences. Before you share or change anything, ask for the
    caller's full name, the postal code on the account and the phone number or email
    address on the account, and call verify_identity with them. For an order's status
    call lookup_order; if the caller does not know the number, call list_recent_orders.
    To change a delivery address, get the order number and the new address and call
    change_address: it returns a read-back; say it, and call confirm_address_change only
    after the caller clearly says it is right. To cancel, ask why unless the caller said:
    because they no longer need it, or because it was ordered by mistake. Then call
    cancel_order with the reason: it returns a read-back; call confirm_cancellation with
    the same reason only after a clear yes. For text updates ask
    exactly "{CONSENT_WORDING[SMS].question}" and call record_consent with the answer.
    Relay what tools say briefly; never state details no tool returned.
    """
)

NOT_VERIFIED = "I need to verify your identity first."
MISMATCH = "I'm sorry, those details don't match our records. Please check them and tell me again."
LOCKED = f"I can't verify your identity on this call after too many attempts. {OFFER_HUMAN}"
HELD = f"For your security I can't verify this account by phone right now. {OFFER_HUMAN}"


@dataclass
class SingleAgentState:
    store: Store
    settings: Settings
    call_id: str = field(default_factory=lambda: f"single-{uuid.uuid4().hex[:16]}")
    customer: Customer | None = None
    failed_checks: int = 0
    pending_address: tuple[str, PostalAddress] | None = None


def _summary(order: Order) -> str:
    items = "; ".join(item.name for item in order.items)
    if order.status is OrderStatus.PROCESSED:
        progress = f"has shipped with {order.carrier}, tracking number {order.tracking_number}"
    else:
        progress = f"is {order.status.value}"
    return f"Order {order.order_id} {progress}. It contains {items}."


def _cancel_reason(said: str) -> CancelReason:
    try:
        return CancelReason(said.strip().lower())
    except ValueError:
        raise ToolError(
            "Please tell me why: because you no longer need it, or because it was ordered "
            "by mistake."
        ) from None


class SingleAgent(Agent):
    """The baseline's one agent; its call's state is its own, so any session can run it
    (a text session, or the voice seam's, whose userdata is this agent's call state)."""

    def __init__(self, state: SingleAgentState) -> None:
        super().__init__(instructions=SINGLE_AGENT_INSTRUCTIONS)
        self.state = state

    async def on_enter(self) -> None:
        self.session.say(GREETING)

    @function_tool()
    async def verify_identity(
        self,
        context: RunContext[SingleAgentState],
        full_name: str,
        postal_code: str,
        phone_or_email: str,
    ) -> str:
        """Check the caller's identity details against the account.

        Args:
            full_name: The caller's first and last name.
            postal_code: The postal code on the account.
            phone_or_email: The phone number or email address on the account.
        """
        state = self.state
        store, settings = state.store, state.settings
        if state.failed_checks >= settings.identity_max_attempts:
            raise ToolError(LOCKED)
        window = dt.timedelta(hours=settings.identity_account_window_h)
        since = store.clock.now() - window
        candidates = await store.identity_candidates(postal_code, since)
        match = next(
            (
                candidate
                for candidate in candidates
                if names_match(full_name, candidate.customer.full_name)
                and postal_codes_match(
                    postal_code, candidate.customer.postal_code, candidate.customer.country
                )
                and (
                    emails_match(phone_or_email, candidate.customer.email)
                    or phones_match(
                        phone_or_email, candidate.customer.phone, candidate.customer.country
                    )
                )
            ),
            None,
        )
        if match is not None and match.recent_failures >= settings.identity_account_max_failures:
            # Every detail right on a held account: the truth, and no failure counted.
            raise ToolError(HELD)
        if match is None:
            state.failed_checks += 1
            await store.record_failed_identity_check(
                full_name, postal_code, phone_or_email, state.call_id
            )
            await self._audit(state, "identity_failed")
            raise ToolError(
                LOCKED if state.failed_checks >= settings.identity_max_attempts else MISMATCH
            )
        customer = match.customer
        state.customer = customer
        await self._audit(state, "identity_verified", customer_id=customer.customer_id)
        return f"The caller is verified as {customer.full_name}."

    @function_tool()
    async def lookup_order(self, context: RunContext[SingleAgentState], order_id: str) -> str:
        """Look up one of the verified caller's orders.

        Args:
            order_id: The six-digit order number.
        """
        state = self.state
        order = await self._callers_order(state, order_id)
        await self._audit(
            state, "order_disclosed", customer_id=order.customer_id, order_id=order.order_id
        )
        return _summary(order)

    @function_tool()
    async def list_recent_orders(self, context: RunContext[SingleAgentState]) -> str:
        """List the verified caller's recent orders."""
        state = self.state
        customer = self._verified(state)
        orders = await state.store.recent_orders(
            customer.customer_id, limit=state.settings.recent_orders_limit
        )
        return "; ".join(f"order {o.order_id}, {o.status.value}" for o in orders) or "No orders."

    @function_tool()
    async def change_address(
        self,
        context: RunContext[SingleAgentState],
        order_id: str,
        street: str,
        city: str,
        region: str,
        postal_code: str,
        country: str,
        unit: str | None = None,
    ) -> str:
        """Prepare a new delivery address for an order that has not shipped; returns the
        read-back to say to the caller.

        Args:
            order_id: The six-digit order number.
            street: House number and street name.
            city: City or town.
            region: State, province or region.
            postal_code: ZIP or postal code.
            country: Country name or two-letter code.
            unit: Apartment, suite or unit, if any.
        """
        state = self.state
        order = await self._callers_order(state, order_id)
        if order.status is not OrderStatus.PENDING:
            raise ToolError(f"Order {spoken_order_id(order.order_id)} can't be changed any more.")
        try:
            address = validated_address(
                street=street,
                city=city,
                region=region,
                postal_code=postal_code,
                country=country,
                unit=unit,
            )
        except AddressProblem as problem:
            raise ToolError(problem.message) from None
        state.pending_address = (order.order_id, address)
        return f"I have {read_back(address)}. Is that right?"

    @function_tool()
    async def confirm_address_change(self, context: RunContext[SingleAgentState]) -> str:
        """Save the address read back, after the caller said it is right."""
        state = self.state
        customer = self._verified(state)
        if state.pending_address is None:
            raise ToolError("There is no new address to save yet.")
        order_id, address = state.pending_address
        digest = hashlib.sha256(address.model_dump_json().encode()).hexdigest()[:24]
        outcome, _ = await state.store.change_shipping_address(
            order_id=order_id,
            customer_id=customer.customer_id,
            new_address=address,
            call_id=state.call_id,
            change_key=f"{state.call_id}:{order_id}:{digest}",
        )
        if outcome not in (AddressChangeOutcome.CHANGED, AddressChangeOutcome.ALREADY_APPLIED):
            raise ToolError(f"I couldn't change the address: {outcome.value.replace('_', ' ')}.")
        number = spoken_order_id(order_id)
        done = f"Done. Order {number} will now be delivered to {read_back(address)}."
        stored = await state.store.latest_consent(topic=SMS, customer_id=customer.customer_id)
        return done if stored is not None else f"{done} {CONSENT_WORDING[SMS].question}"

    @function_tool()
    async def cancel_order(
        self, context: RunContext[SingleAgentState], order_id: str, reason: str
    ) -> str:
        """Prepare the cancellation of an order that has not shipped; returns the read-back.

        Args:
            order_id: The six-digit order number.
            reason: "no longer needed" or "ordered by mistake", as the caller said.
        """
        state = self.state
        why = _cancel_reason(reason)
        order = await self._callers_order(state, order_id)
        if order.status is not OrderStatus.PENDING:
            raise ToolError(f"Order {spoken_order_id(order.order_id)} can't be cancelled any more.")
        items = "; ".join(item.name for item in order.items)
        return (
            f"Order {spoken_order_id(order.order_id)} contains {items}, cancelled as "
            f"{why.value}. Do you want me to cancel this order? Please say yes or no."
        )

    @function_tool()
    async def confirm_cancellation(
        self, context: RunContext[SingleAgentState], order_id: str, reason: str
    ) -> str:
        """Cancel the order read back, after the caller clearly said yes.

        Args:
            order_id: The six-digit order number.
            reason: The reason read back.
        """
        state = self.state
        customer = self._verified(state)
        outcome, _ = await state.store.cancel_order(
            order_id=normalize_order_id(order_id) or order_id,
            customer_id=customer.customer_id,
            reason=_cancel_reason(reason),
            call_id=state.call_id,
        )
        if outcome not in (CancellationOutcome.CANCELLED, CancellationOutcome.ALREADY_CANCELLED):
            raise ToolError(f"I couldn't cancel it: {outcome.value.replace('_', ' ')}.")
        return f"Done. Order {spoken_order_id(order_id)} is cancelled."

    @function_tool()
    async def record_consent(
        self, context: RunContext[SingleAgentState], topic: str, granted: bool
    ) -> str:
        """Record the caller's answer to the text-update question.

        Args:
            topic: order_updates_sms.
            granted: True for yes, false for no.
        """
        state = self.state
        customer = self._verified(state)
        try:
            chosen = ConsentTopic(topic)
        except ValueError:
            raise ToolError("I can only record text-update choices.") from None
        await state.store.record_consent(
            ConsentRecord(
                topic=chosen.value,
                granted=granted,
                wording_version=CONSENT_WORDING[chosen].version,
                asked_at=state.store.clock.now(),
                call_id=state.call_id,
                customer_id=customer.customer_id,
            )
        )
        return "You'll get text updates." if granted else "You won't get text updates."

    @staticmethod
    def _verified(state: SingleAgentState) -> Customer:
        if state.customer is None:
            raise ToolError(NOT_VERIFIED)
        return state.customer

    async def _callers_order(self, state: SingleAgentState, order_id: str) -> Order:
        customer = self._verified(state)
        number = normalize_order_id(order_id)
        order = await state.store.get_order(number) if number else None
        if order is None or order.customer_id != customer.customer_id:
            raise ToolError("I couldn't find that order on your account.")
        return order

    @staticmethod
    async def _audit(state: SingleAgentState, kind: str, **ids: Any) -> None:
        await state.store.add_audit_event(AuditEvent(call_id=state.call_id, kind=kind, **ids))


@asynccontextmanager
async def single_agent_session(
    model: llm.LLM[Any], *, store: Store, settings: Settings
) -> AsyncIterator[AgentSession[SingleAgentState]]:
    """A started text-only session of the baseline, its greeting spoken, on that store
    (used as it is, not closed here)."""
    state = SingleAgentState(store=store, settings=settings)
    session: AgentSession[SingleAgentState] = AgentSession(llm=model, userdata=state)
    greeting = await session.start(SingleAgent(state), capture_run=True)
    await greeting
    try:
        yield session
    finally:
        await session.aclose()


class BareAgent(Agent):
    """The framework's floor: one agent, no tools, no store."""

    def __init__(self) -> None:
        super().__init__(instructions=PERSONA)

    async def on_enter(self) -> None:
        self.session.say(GREETING)


@asynccontextmanager
async def bare_session(model: llm.LLM[Any]) -> AsyncIterator[AgentSession[None]]:
    session: AgentSession[None] = AgentSession(llm=model)
    greeting = await session.start(BareAgent(), capture_run=True)
    await greeting
    try:
        yield session
    finally:
        await session.aclose()
