"""The return the caller confirmed, and its check in code: for the order being returned,
naming its items, with the refund going to a method it may go to."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from customer_service.call.delegation import ResultRejected
from customer_service.call.order_view import OrderLookupResult
from customer_service.call.run_check_write import well_formed
from customer_service.domain import ORDER_ID_PATTERN, PaymentMethod
from customer_service.store import ReturnReason


class ReturnResult(BaseModel):
    """The caller's confirmed request to return some items of one order."""

    model_config = ConfigDict(frozen=True)

    order_id: str = Field(pattern=ORDER_ID_PATTERN)
    item_indices: tuple[int, ...] = Field(
        min_length=1, description="Positions in the order's items, from 0, ascending."
    )
    reason: ReturnReason
    refund_method_id: str = Field(min_length=1, description="The method the refund goes to.")


def validated_return(
    result: object, order: OrderLookupResult, choices: Sequence[PaymentMethod]
) -> ReturnResult:
    """The confirmed request, once it is well formed, for `order`, names its items and
    sends the refund to one of `choices`."""
    request = well_formed(ReturnResult, result, what="return")
    if request.order_id != order.order_id:
        raise ResultRejected("return result is for another order")
    if request.refund_method_id not in {method.method_id for method in choices}:
        raise ResultRejected("return result refunds to a method it may not")
    indices = request.item_indices
    if list(indices) != sorted(set(indices)) or not 0 <= indices[0] <= indices[-1] < len(
        order.items
    ):
        raise ResultRejected("return result names items not in the order")
    return request
