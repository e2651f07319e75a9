"""What the caller hears of the order found: its status, recorded as disclosed, said by
code as soon as it is read."""

from __future__ import annotations

from livekit.agents import RunContext

from customer_service.call.order_view import OrderLookupResult
from customer_service.call.phrase_cache import say
from customer_service.call.state import CallState
from customer_service.call.wording import unquoted


def disclosed(state: CallState, order: OrderLookupResult) -> str:
    """What the caller hears about an order whose disclosure is recorded (`callers_order`
    with `disclosing`)."""
    state.record_disclosure(order.order_id)
    return order.summary()


def status_said(context: RunContext[CallState], status: str) -> str:
    """The order's status (`disclosed`), said by code as soon as it is read: no model
    request stands between the store's read and the caller's answer. The model still
    gets it, stored text quoted as data, for what the caller asks next; its reply to it
    keeps only its tool calls (the caller's next request in the same line), or is the
    closing question (`FirstWords.result_said`). When the caller's words cut off the
    reply this tool ran in, no reply follows, and `guarded` says the same words once the
    framework has them (`late_results.say_if_cut_off`)."""
    if not context.speech_handle.interrupted:
        say(context.session, unquoted(status))
        context.userdata.first_words.result_said(context.function_call.call_id)
    return status
