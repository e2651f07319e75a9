"""The number a phone line presented, standing in for the phone factor of the identity
check once the caller confirms, in their own words, that it is the number on their
account (`telephony.caller_id.CallingNumberConfirmation`)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from livekit.agents import RunContext, ToolError, function_tool
from livekit.agents.llm import FunctionTool

from customer_service.call.guard import guarded
from customer_service.call.identity_policy import GivenDetails
from customer_service.call.state import CallState
from customer_service.specialists.identity.check import IdentityCheck
from customer_service.telephony.caller_id import (
    CALLING_NUMBER_NOT_CONFIRMED,
    CallingNumberConfirmation,
)


class CallingNumberCheck(IdentityCheck):
    """The identity task's calling-number part; the task (`VerifyIdentityTask`) sets the
    number (None when the line presented none) and the question about it."""

    _calling_number: str | None
    _calling_number_question: CallingNumberConfirmation

    def _calling_number_tool(
        self,
    ) -> FunctionTool[[RunContext[CallState], str, str], Coroutine[Any, Any, None]]:
        @function_tool(name="use_calling_number")
        async def use_calling_number(
            context: RunContext[CallState], full_name: str, postal_code: str
        ) -> None:
            """Check the caller's name and postal code with the number they are calling
            from. Call when they said it is the number on their account.

            Args:
                full_name: The caller's first and last name, as they said it.
                postal_code: The postal or ZIP code on the account, as they said it.
            """
            await self._use_calling_number(context, full_name, postal_code)

        return use_calling_number

    # Checks go through `_check`, whose cap is the stricter bound, as for check_identity.
    @guarded(count_repeats=False)
    async def _use_calling_number(
        self, context: RunContext[CallState], full_name: str, postal_code: str
    ) -> None:
        question = self._calling_number_question
        confirmed = question.outcome()
        if self._calling_number is None or confirmed is False:
            # Not a check: nothing is counted, and the caller gives a phone or email.
            raise ToolError(CALLING_NUMBER_NOT_CONFIRMED)
        if confirmed is None:
            # Not heard, not answered, or a yes to something else: ask it on its own.
            question.ask()
            return
        given = GivenDetails(full_name, postal_code, self._calling_number)
        await self._check(context.userdata, given, calling_number=True)
