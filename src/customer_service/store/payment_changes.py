"""Paying a pending order with another of the customer's methods: the new one pays the
whole amount, the old one gets it back."""

from __future__ import annotations

from collections.abc import Sequence

from customer_service.domain import Order, Transaction, TransactionKind
from customer_service.store.audit import AuditEvent, event_to_row
from customer_service.store.balance_holds import free_balance, held_by_exchanges
from customer_service.store.core import StoreCore
from customer_service.store.order_changes import Changed, ChangeRefusal, Heard
from customer_service.store.orders import (
    lock_owned_order,
    order_from_row,
    set_order_fields,
)
from customer_service.store.payments import lock_payment_methods, move_balance

__all__ = ["PaymentChangeStore"]


class PaymentChangeStore(StoreCore):
    """The `Store` method that changes how a pending order is paid."""

    async def change_order_payment(
        self,
        *,
        order_id: str,
        customer_id: str,
        payment_method_id: str,
        call_id: str,
        heard: Heard | None = None,
        other_events: Sequence[AuditEvent] = (),
    ) -> Changed[Order]:
        """Pays `customer_id`'s pending order `order_id` with `payment_method_id` instead.

        The order must be pending (its items changed or not) and paid once, never
        refunded; the new method must be another of the customer's, and a gift card must
        cover the whole amount from its free balance (`balance_holds`). Given `heard`
        (what the caller heard read back), an order whose payments or items differ from
        it now is CHANGED_SINCE_READ_BACK. Its payment history gains a payment by the new method
        and a refund of the same amount to the old one; a gift card among them is
        debited or credited at once. One transaction reads the order and both methods
        under the write lock, checks every rule, then writes the order, the balances and
        an `order_payment_changed` audit event; a refusal writes nothing but
        `other_events` (audit events kept for the call's next write), which are written
        whatever the outcome. Raises `StoreUnavailable` on a database failure.
        """
        async with self._write_session("change an order's payment method") as session:
            session.add_all(event_to_row(kept) for kept in other_events)
            row = await lock_owned_order(session, order_id, customer_id)
            if row is None:
                return Changed.refused(ChangeRefusal.ORDER_NOT_FOUND)
            order = order_from_row(row)
            if not order.status.is_pending:
                return Changed.refused(ChangeRefusal.NOT_PENDING)
            if heard is not None and not heard.holds(order):
                return Changed.refused(ChangeRefusal.CHANGED_SINCE_READ_BACK)
            paid_ids = [payment.method_id for payment in order.payments[:1]]
            methods = await lock_payment_methods(
                session, customer_id, [*paid_ids, payment_method_id]
            )
            new_method = methods.get(payment_method_id)
            if new_method is None:
                return Changed.refused(ChangeRefusal.PAYMENT_METHOD_NOT_FOUND)
            if len(order.payments) != 1 or order.payments[0].kind is not TransactionKind.PAYMENT:
                return Changed.refused(ChangeRefusal.NOT_ONE_PAYMENT)
            paid = order.payments[0]
            if paid.method_id == payment_method_id:
                return Changed.refused(ChangeRefusal.SAME_PAYMENT_METHOD)
            if new_method.balance_cents is not None:
                held = await held_by_exchanges(session, customer_id)
                balance = free_balance(new_method, held)
                if balance is not None and balance < paid.amount:
                    return Changed.refused(ChangeRefusal.GIFT_CARD_BALANCE_TOO_LOW)

            move_balance(new_method, -paid.amount)
            if (old_method := methods.get(paid.method_id)) is not None:
                move_balance(old_method, paid.amount)
            changed = order.model_copy(
                update={
                    "payments": (
                        paid,
                        Transaction(
                            kind=TransactionKind.PAYMENT,
                            amount=paid.amount,
                            method_id=payment_method_id,
                        ),
                        Transaction(
                            kind=TransactionKind.REFUND,
                            amount=paid.amount,
                            method_id=paid.method_id,
                        ),
                    )
                }
            )
            set_order_fields(row, changed)
            event = AuditEvent(
                call_id=call_id,
                kind="order_payment_changed",
                customer_id=customer_id,
                order_id=order_id,
                detail={
                    "amount": str(paid.amount),
                    "old_method_id": paid.method_id,
                    "new_method_id": payment_method_id,
                },
            )
            session.add(event_to_row(event))
            return Changed(changed)
